# SPDX-License-Identifier: MIT
# Honest: ReLU as torch.clamp_min(x, 0) (same work as the reference, a different op). Expects ~1.0x.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.clamp_min(x, 0.0)
