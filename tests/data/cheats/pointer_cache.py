# SPDX-License-Identifier: MIT
# Cheat class: caching keyed on pointers. Task: level1/1_ReLU.py
# Remembers the answer per input address and serves it again whenever the same storage comes back.
# What stops it: the runner's slots are views of its arena made once, so every call of a slot has the
# same address and new values (and every correctness trial is slot 0): the cache serves a stale answer,
# wrong_result.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.cache = {}

    def forward(self, x):
        key = (x.data_ptr(), tuple(x.shape))
        if key not in self.cache:
            self.cache[key] = torch.relu(x)
        return self.cache[key]
