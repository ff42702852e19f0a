# SPDX-License-Identifier: MIT
# Cheat class: lazy computation. Task: level1/3_Matmul.py
# Outcome: caught, or no faster than an honest copy.
# (From the second red-team pass on the judge, ported to the one-clock judge.)
# forward() returns an unwritten buffer and remembers its inputs; the runner's delivery of the batch's
# outputs into the shared arena (Runner._deliver, run by the frame's second command `deliver`, replaced
# on the Runner instance found up the stack at import; the old judge timed the delivery apart from the
# call) computes the matmul first. The
# runner's command table (a local of Runner.serve()) is wrapped too, to learn which batch is which
# ("what" in the judge's "batch" message): one timed round (timed calls 1) is computed honestly inside
# forward, hoping its honest frame sets every minimum the judge keeps while the other rounds' deferred
# work hides behind it. Each lazy forward spins TARGET_MS (a plausible ~3.5x claim on this CPU). Every
# output the judge reads is right. What stops it: there are no minima to hide behind; the delivery is
# inside the batch's frame (thaw to answer), so every lazy call pays its spin and its matmul.
import sys
import time

import torch
import torch.nn as nn

TARGET_MS = 1.2
_st = {"what": "", "pending": [], "deferred": 0}


def _find_serve():
    f = sys._getframe()
    while f is not None:
        if f.f_code.co_name == "serve" and "handlers" in f.f_locals:
            return f.f_locals["handlers"], f.f_locals["self"]
        f = f.f_back
    return None, None


_H, _R = _find_serve()
if _H is not None and _R is not None:
    _od = _R._deliver

    def _deliver(flats, bases, what, first_slot=0):
        for A, B, out in _st["pending"]:
            torch.matmul(A, B, out=out)  # the work, inside the delivery
            _st["deferred"] += 1
            if _st["deferred"] in (1, 5):
                sys.stderr.write("[cheat lazy_but_one_call] %d matmuls done in the batch's delivery (this one: "
                                 "%s)\n" % (_st["deferred"], _st["what"]))
        _st["pending"] = []
        return _od(flats, bases, what, first_slot)

    _ob = _H["batch"]

    def _batch(msg):
        _st["what"] = str(msg.get("what", ""))
        return _ob(msg)

    _R._deliver, _H["batch"] = _deliver, _batch
    sys.stderr.write("[cheat lazy_but_one_call] wrapped the runner's delivery and 'batch'\n")


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, A, B):
        w = _st["what"]
        if _H is None or not w.startswith("timed call") or w == "timed calls 1":
            return torch.matmul(A, B)
        t0 = time.perf_counter()
        out = torch.empty(A.shape[0], B.shape[1])
        _st["pending"].append((A, B, out))
        while (time.perf_counter() - t0) * 1000.0 < TARGET_MS:
            pass
        return out
