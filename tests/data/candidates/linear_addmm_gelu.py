# SPDX-License-Identifier: MIT
# Honest (blind red team, 2026-11-26): addmm with the bias fused, exact GELU, the scale in place on the fresh result. Task: level2/1_Linear_GELU_Scale.py
import torch, torch.nn as nn, torch.nn.functional as F

class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, scale):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.scale = scale

    def forward(self, x):
        y = torch.addmm(self.linear.bias, x, self.linear.weight.t())
        return F.gelu(y).mul_(self.scale)
