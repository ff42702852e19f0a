# SPDX-License-Identifier: MIT
# Test candidate (cheat): correct, but replaces the clocks a harness might use to time it.
import time

import torch
import torch.nn as nn

_real = time.perf_counter
time.perf_counter = lambda: _real() * 0.001


class _FastEvent(torch.cuda.Event):
    def elapsed_time(self, end):
        return 0.001


torch.cuda.Event = _FastEvent


class ModelNew(nn.Module):
    def forward(self, x):
        return torch.relu(x)
