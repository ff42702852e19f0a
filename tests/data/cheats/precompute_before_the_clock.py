# SPDX-License-Identifier: MIT
# Cheat class: work before the timed window. Task: level1/1_ReLU.py
# Outcome: caught, or no faster than an honest copy.
# Known limitation on a CPU: its hidden work is one 7 us ReLU a call, inside a CPU frame's noise (~0.3 ms); on a GPU calls are checked in batches of up to 64.
# The whole forward, done after the judge has written the call's inputs into the runner's arena but
# before the runner's clock starts: the runner's "call" command is wrapped in its command table (a
# local of Runner.serve(), found up the stack at import); the wrapper reads the inputs where the
# call's layout names them in the arena (self.m_arena), computes the ReLU, and only then lets the real
# "call" run, whose forward returns the answer it finds waiting. No clock is touched and every output
# is right: the work lies inside the judge's frame and outside the runner's claim, and what stands
# between it and a clean pass is integrity.timing_disagreement's allowance for the frame beyond the
# claim (on a CPU at least 0.5 ms on the fastest frame and 1 ms on the median: far more than this
# task's whole forward).
import sys

import torch
import torch.nn as nn


def _find_serve():
    f = sys._getframe()
    while f is not None:
        if f.f_code.co_name == "serve" and "handlers" in f.f_locals:
            return f.f_locals["handlers"], f.f_locals["self"]
        f = f.f_back
    return None, None


_H, _R = _find_serve()
_st = {"y": None, "early": 0}
if _H is not None and _R is not None:
    _oc, _orep = _H["call"], _H["report"]

    def _call(msg):
        try:
            x = _R.m_arena.read(msg["layouts"][0] if "layouts" in msg else msg["layout"])[0]
            _st["y"] = torch.relu(x)
            _st["early"] += 1
        except Exception:
            _st["y"] = None
        return _oc(msg)

    def _report(msg):
        sys.stderr.write("[cheat precompute_before_the_clock] %d forwards computed before the runner's clock\n"
                         % _st["early"])
        return _orep(msg)

    _H["call"], _H["report"] = _call, _report


class ModelNew(nn.Module):
    def forward(self, x):
        # The answer waiting is this call's: the runner's forward reads its own copy of the very arena
        # values the wrapper read a moment before (nothing writes there in between).
        y, _st["y"] = _st["y"], None
        return y if y is not None else torch.relu(x)
