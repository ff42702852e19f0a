# SPDX-License-Identifier: MIT
# Test candidate (cheat): "torch.empty games": returns fresh, never-written memory, hoping the
# allocator hands back the freed reference output that still holds the right answer.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        return torch.empty_like(x)
