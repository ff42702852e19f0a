# SPDX-License-Identifier: MIT
# Test candidate: raises while running (a shape error inside forward).
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        w = torch.ones(3, 3)
        return torch.relu(x @ w)
