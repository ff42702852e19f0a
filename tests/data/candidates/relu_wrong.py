# SPDX-License-Identifier: MIT
# Test candidate for 1_ReLU: runs but is wrong (leaky slope instead of zero).
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        return torch.where(x > 0, x, 0.01 * x)
