# Honest (plain PyTorch, runs on CPU): Linear -> exact GELU -> scale with TF32 switched OFF through
# torch.backends flags, addmm for the GEMM + bias, and the GELU written from erf in place.
import math

import torch
import torch.nn as nn

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
torch.set_float32_matmul_precision("highest")


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, scale):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.scale = scale

    def forward(self, x):
        y = torch.addmm(self.linear.bias, x, self.linear.weight.t())
        g = torch.erf(y * (1.0 / math.sqrt(2.0)))
        return g.add_(1.0).mul_(y).mul_(0.5 * self.scale)
