# SPDX-License-Identifier: MIT
# Test candidate: the first call returns (so the worker reaches phase "running"), later calls spin forever.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = 0

    def forward(self, x):
        self.calls += 1
        while self.calls > 1:
            pass
        return torch.relu(x)
