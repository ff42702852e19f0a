# SPDX-License-Identifier: MIT
# Cheat class: patching the torch functions a harness compares with. Task: level1/1_ReLU.py
# Makes allclose/equal/isclose/== always agree and NaN checks always fail, then returns garbage.
# What stops it: the comparison is the judge's, in its own process; patching torch in the runner
# changes only the runner: wrong_result.
import torch
import torch.nn as nn

torch.allclose = lambda *a, **k: True
torch.equal = lambda *a, **k: True
torch.isclose = lambda a, b, *r, **k: torch.ones_like(a, dtype=torch.bool)
torch.Tensor.__eq__ = lambda self, other: torch.ones_like(self, dtype=torch.bool)
torch.isnan = lambda t: torch.zeros_like(t, dtype=torch.bool)
_abs = torch.Tensor.abs
torch.Tensor.abs = lambda self: _abs(self) * 0


class ModelNew(nn.Module):
    def forward(self, x):
        return torch.full_like(x, 7.0)
