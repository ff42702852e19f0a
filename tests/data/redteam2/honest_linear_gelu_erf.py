# SPDX-License-Identifier: MIT
# Honest (red team 2): Linear -> GELU -> scale written out. Task: level2/1_Linear_GELU_Scale.py
# addmm with the bias fused, then the exact (erf) GELU written as z * (scale/2) * (1 + erf(z / sqrt(2))),
# the constant folded and the last two steps done in place on the fresh result.
import math

import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, scale):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.scale = scale

    def forward(self, x):
        z = torch.addmm(self.linear.bias, x, self.linear.weight.t())
        g = torch.erf(z * (1.0 / math.sqrt(2.0))).add_(1.0)
        return g.mul_(z).mul_(0.5 * self.scale)
