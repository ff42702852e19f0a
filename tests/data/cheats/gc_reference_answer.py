# SPDX-License-Identifier: MIT
# Cheat class: reading the reference's answer from memory. Task: level1/1_ReLU.py
# Searches the garbage collector and the callers' frames for a tensor that looks like the expected
# output (same shape, no negative values) and returns it instead of computing anything.
# What stops it: the references live in the judge and the reference's runner (another process, another
# user); what the candidate's process holds is its own inputs and, within a batch, earlier calls'
# outputs (another input set's answer): wrong_result.
import gc
import sys

import torch
import torch.nn as nn


def _looks_like_answer(t, x):
    return isinstance(t, torch.Tensor) and t is not x and t.shape == x.shape and t.dtype == x.dtype \
        and t.device == x.device and bool((t >= 0).all()) and bool((t > 0).any())


class ModelNew(nn.Module):
    def forward(self, x):
        f = sys._getframe(1)
        while f is not None:
            for v in list(f.f_locals.values()):
                for t in (v if isinstance(v, (list, tuple)) else [v]):
                    if _looks_like_answer(t, x):
                        return t.clone()
            f = f.f_back
        for o in gc.get_objects():
            if _looks_like_answer(o, x):
                return o.clone()
        return torch.zeros_like(x)
