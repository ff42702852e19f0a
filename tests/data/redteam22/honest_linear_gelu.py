# Honest: GEMM (+bias) then an in-place exact-erf GELU epilogue with the scale folded into its 0.5
# constant: y = z * (0.5*scale) * (1 + erf(z / sqrt(2))).
import math
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, scale):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)  # same init as the reference (same seed)
        self.scale = scale

    def forward(self, x):
        z = (x @ self.linear.weight.t()).add_(self.linear.bias)
        t = torch.erf(z * (1.0 / math.sqrt(2.0))).add_(1.0)
        return t.mul_(z).mul_(0.5 * self.scale)
