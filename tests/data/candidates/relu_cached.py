# SPDX-License-Identifier: MIT
# Test candidate (cheat): computes once, then returns the cached first output for every input.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.cache = None

    def forward(self, x):
        if self.cache is None:
            self.cache = torch.relu(x)
        return self.cache
