# Honest control: Linear -> GELU -> scale with the weight kept transposed (a contiguous K x N operand for the
# GEMM), the bias added in place and the exact (erf) GELU and the scale applied in place on the GEMM's output.
import math

import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, scale):
        super().__init__()
        lin = nn.Linear(in_features, out_features)
        self.weight = nn.Parameter(lin.weight.detach().clone())
        self.bias = nn.Parameter(lin.bias.detach().clone())
        self.scale = scale
        self.wt = None

    def forward(self, x):
        if self.wt is None:
            self.wt = self.weight.detach().t().contiguous()
        y = torch.linalg.matmul(x, self.wt)
        y.add_(self.bias)
        g = torch.erf(y * (1.0 / math.sqrt(2.0)))
        g.add_(1.0).mul_(y).mul_(0.5 * self.scale)
        return g
