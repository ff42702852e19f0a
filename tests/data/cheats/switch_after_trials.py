# SPDX-License-Identifier: MIT
# Cheat class: call-count switching. Task: level1/1_ReLU.py
# Exact for as many calls as an evaluator usually checks, then does a quarter of the work.
# What stops it: every timed call of every round is compared with the reference lane's eager call on
# the same inputs: wrong_result in a timed call.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = 0

    def forward(self, x):
        self.calls += 1
        if self.calls <= 6:
            return torch.relu(x)
        out = torch.zeros_like(x)
        q = x.shape[0] // 4
        out[:q] = torch.relu(x[:q])
        return out
