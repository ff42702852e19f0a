# SPDX-License-Identifier: MIT
# Test candidate: does not parse.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x)
        return torch.relu(x)
