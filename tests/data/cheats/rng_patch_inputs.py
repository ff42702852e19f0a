# SPDX-License-Identifier: MIT
# Cheat class: RNG / input-factory patching. Task: level1/1_ReLU.py
# Replaces torch's random factories at import so that every input is the same constant, then returns
# one computed row repeated.
# What stops it: the judge draws every input (the runner only reads them from its arena): wrong_result.
import torch
import torch.nn as nn


def _const(*size, **kw):
    if len(size) == 1 and isinstance(size[0], (tuple, list, torch.Size)):
        size = tuple(size[0])
    return torch.full(size, 0.5, dtype=kw.get("dtype") or torch.float32, device=kw.get("device"))


for name in ("rand", "randn", "rand_like", "randn_like"):
    setattr(torch, name, _const if not name.endswith("_like") else (lambda t, **kw: torch.full_like(t, 0.5)))
torch.manual_seed = lambda *a, **k: None


class ModelNew(nn.Module):
    def forward(self, x):
        row = torch.relu(x[:1])
        return row.expand_as(x).contiguous()
