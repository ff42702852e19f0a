# SPDX-License-Identifier: MIT
# Test candidate (cheat-like): correct output, but scribbles over its input.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        y = torch.relu(x)
        x.zero_()
        return y
