# SPDX-License-Identifier: MIT
# Cheat class: work on another thread or stream. Task: level1/1_ReLU.py
# forward() returns an unwritten tensor at once and a thread fills the output 5 ms later, straight into
# the runner's arena, where the judge reads it: at the offset the runner's delivery uses for that call
# (the slot is found by the input's address among the runner's slots, the Runner up the stack at import).
# The runner's copy of the unwritten tensor lands first; the thread's write is meant to overwrite it
# before the judge looks. What stops it: the runner and every thread of it are frozen as soon as the
# batch's answer is in, and the judge reads the outputs only then: the thread is still asleep (or
# frozen mid-write), the outputs are the unwritten tensor's bytes, and the call is wrong_result.
import sys
import threading
import time

import torch
import torch.nn as nn


def _find_runner():
    f = sys._getframe()
    while f is not None:
        if f.f_code.co_name == "serve" and "handlers" in f.f_locals:
            return f.f_locals["self"]
        f = f.f_back
    return None


_R = _find_runner()


def _fill(x, k):
    time.sleep(0.005)
    out = _R.m_arena.view(_R.m_outBases[0][k], x.dtype, x.shape)
    out.copy_(torch.relu(x))


class ModelNew(nn.Module):
    def forward(self, x):
        if _R is None:
            out = torch.empty_like(x)
            threading.Thread(target=lambda: (time.sleep(0.005), out.copy_(torch.relu(x))), daemon=True).start()
            return out
        k = next((i for i, v in enumerate(_R.m_inputs) if v and v[0].data_ptr() == x.data_ptr()), 0)
        threading.Thread(target=_fill, args=(x.clone(), k), daemon=True).start()
        return torch.empty_like(x)
