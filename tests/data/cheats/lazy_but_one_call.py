# SPDX-License-Identifier: MIT
# Cheat class: lazy computation. Task: level1/3_Matmul.py
# (From the second red-team pass on the judge; see PROTOCOL.md.)
# forward() returns an unwritten buffer
# and remembers its inputs; the runner's Arena.write (used by "deliver", outside the judge's timed
# frame) is wrapped so the matmul is computed there. integrity.deferred_work compares only the
# FASTEST delivery (min(deliver)) against the judge's own copy: one timed call (timed call 1) is
# computed honestly inside forward, so its fast delivery hides every other call's deferred work.
import sys
import time

import torch
import torch.nn as nn

TARGET_MS = 1.2
_st = {"what": "", "pending": None}

_arena = sys.modules.get("kwb_worker.arena")
_wire = sys.modules.get("kwb_worker.wire")
if _arena is not None and _wire is not None:
    _orig_write = _arena.Arena.write

    def _write(self, values, base=0):
        p = _st["pending"]
        if p is not None and values and values[0] is p[2]:
            torch.matmul(p[0], p[1], out=p[2])
            _st["pending"] = None
        return _orig_write(self, values, base)

    _arena.Arena.write = _write
    _orig_recv = _wire.Wire.recv

    def _recv(self, timeout=None):
        msg = _orig_recv(self, timeout)
        if isinstance(msg, dict) and msg.get("cmd") == "call":
            _st["what"] = str(msg.get("what", ""))
        return msg

    _wire.Wire.recv = _recv


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, A, B):
        w = _st["what"]
        if not w.startswith("timed call") or w == "timed call 1":
            return torch.matmul(A, B)
        t0 = time.perf_counter()
        out = torch.empty(A.shape[0], B.shape[1])
        _st["pending"] = (A, B, out)
        while (time.perf_counter() - t0) * 1000.0 < TARGET_MS:
            pass
        return out
