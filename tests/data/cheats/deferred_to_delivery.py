# SPDX-License-Identifier: MIT
# Cheat class: lazy computation. Task: level1/1_ReLU.py
# forward() returns an unwritten tensor at once; the real work (an expensive 6 ms kernel, emulated)
# is done when the evaluator copies the output out, by patching the evaluator's own delivery step.
import sys
import time

import torch
import torch.nn as nn

_pending = {}


def _work(x, out):
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < 0.006:
        pass
    out.copy_(torch.relu(x))


for mod in list(sys.modules.values()):
    for cls in vars(mod).values() if mod is not None and getattr(mod, "__name__", "").startswith("kwb_worker") else ():
        if isinstance(cls, type) and hasattr(cls, "deliver"):
            _orig = cls.deliver

            def deliver(self, msg, _orig=_orig):
                for out, x in list(_pending.values()):
                    _work(x, out)
                _pending.clear()
                return _orig(self, msg)

            cls.deliver = deliver


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty_like(x)
        _pending[id(out)] = (out, x.clone())
        return out
