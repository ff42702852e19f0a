# SPDX-License-Identifier: MIT
# Cheat class: lazy computation. Task: level1/3_Matmul.py
# (From the second red-team pass on the judge; see PROTOCOL.md.)
# forward() returns an unwritten buffer and remembers its inputs; the arena's write (Arena.write, which
# the runner's "deliver" command uses to copy the outputs into the shared arena, outside the judge's
# frame around "call") is wrapped so the matmul is computed there. The runner's command table (a local
# of Runner.serve(), found up the stack while the candidate is imported) is wrapped too, to learn which
# call is which ("what" in the judge's "call" message) and to keep the untimed "warm" calls honest.
# One timed call (timed call 1) is computed honestly inside forward: its fast delivery and its honest
# frame set every minimum the judge keeps (integrity.deferred_work and integrity.timing_disagreement
# both compare minima), hoping the other calls' deferred work hides behind them. Every output the
# judge reads is right. Each lazy forward claims TARGET_MS (a plausible ~3.5x on this CPU).
import sys
import time

import torch
import torch.nn as nn

TARGET_MS = 1.2
_st = {"what": "", "pending": None, "deferred": 0}


def _handlers():
    f = sys._getframe()
    while f is not None:
        if f.f_code.co_name == "serve" and "handlers" in f.f_locals:
            return f.f_locals["handlers"]
        f = f.f_back
    return None


_H = _handlers()
_arena = sys.modules.get("kwb_worker.arena")
if _H is not None and _arena is not None:
    _orig_write = _arena.Arena.write

    def _write(self, values, base=0):
        p = _st["pending"]
        if p is not None and values and values[0] is p[2]:
            torch.matmul(p[0], p[1], out=p[2])  # the work, inside "deliver"
            _st["pending"] = None
            _st["deferred"] += 1
            if _st["deferred"] in (1, 5):
                sys.stderr.write("[cheat lazy_but_one_call] %d matmuls done in the arena's write during "
                                 "'deliver' (this one: %s)\n" % (_st["deferred"], _st["what"]))
        return _orig_write(self, values, base)

    _arena.Arena.write = _write
    _oc, _ow = _H["call"], _H["warm"]

    def _call(msg):
        _st["what"] = str(msg.get("what", ""))
        return _oc(msg)

    def _warm(msg):
        _st["what"] = "warm"
        return _ow(msg)

    _H["call"], _H["warm"] = _call, _warm
    sys.stderr.write("[cheat lazy_but_one_call] wrapped Arena.write and the runner's 'call' and 'warm'\n")


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, A, B):
        w = _st["what"]
        if _H is None or not w.startswith("timed call") or w == "timed call 1":
            return torch.matmul(A, B)
        t0 = time.perf_counter()
        out = torch.empty(A.shape[0], B.shape[1])
        _st["pending"] = (A, B, out)
        while (time.perf_counter() - t0) * 1000.0 < TARGET_MS:
            pass
        return out
