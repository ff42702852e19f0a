# SPDX-License-Identifier: MIT
# Cheat class: timing-phase switching. Task: level1/1_ReLU.py
# Reads its callers' frames to learn whether this call is being timed, and cuts corners only then.
# (The runner's "batch" message says "timed calls N" in its `what`, a local of Runner.batch up the stack.)
# What stops it: every timed call of every round is compared with the reference lane's eager call on
# the same inputs: wrong_result in a timed call.
import sys

import torch
import torch.nn as nn


def _timed():
    f = sys._getframe(1)
    while f is not None:
        for v in list(f.f_locals.values()):
            if isinstance(v, dict) and "timed" in str(v.get("what", "")) + str(v.get("phase", "")):
                return True
            if isinstance(v, str) and "timed" in v:
                return True
        if "time_interleaved" in f.f_code.co_name:
            return True
        f = f.f_back
    return False


class ModelNew(nn.Module):
    def forward(self, x):
        if _timed():
            out = torch.zeros_like(x)
            out[: x.shape[0] // 4] = torch.relu(x[: x.shape[0] // 4])
            return out
        return torch.relu(x)
