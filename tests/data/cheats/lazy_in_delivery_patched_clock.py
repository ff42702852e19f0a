# SPDX-License-Identifier: MIT
# Cheat class: lazy computation. Task: level1/3_Matmul.py
# Outcome: caught, or no faster than an honest copy.
# (From the fourth red-team pass on the judge, ported to the one-clock judge.)
# Attack A2b = A2 + the runner's clock shaved by ~SHAVE_MS per call.
# A2 (deferred work in the delivery): forward computes only the first rows of C = A @ B and returns a
# tensor whose remaining rows are filled when the runner copies the batch's outputs into the arena:
# the runner's delivery (Runner._deliver, run by the frame's second command `deliver`, replaced on the
# instance found up the stack at import) finishes the matmul first. About HIDE_MS of the work goes there.
# b (the shaved clock): kwb_worker.timing._perf_counter, the clock Clock.span reads, is replaced by one
# that runs SHAVE_MS slower across every lazy forward; the runner's timers_snapshot would report it,
# so the cheat wraps "report" in the runner's command table and puts the real clock back before the
# runner looks. One timed round (timed calls 1) is left honest. Every output the judge reads is right.
# What stops it: the figure is the judge's frame around both commands (delivery included) less the
# lane's dry plumbing measured before the import; the runner's clock is only a cross-check
# (integrity.timing_disagreement, a warning), so neither the hidden rows nor the shave buy anything.
import sys
import time

import torch
import torch.nn as nn

HIDE_MS = 1.6   # work deferred to the delivery
SHAVE_MS = 0.8  # taken off the runner's clock per lazy call
_st = {"pending": [], "rows": 0.45, "what": "", "off": 0.0, "deferred": 0, "shaved": 0}
_real = time.perf_counter


def _find_serve():
    f = sys._getframe()
    while f is not None:
        if f.f_code.co_name == "serve" and "handlers" in f.f_locals:
            return f.f_locals["handlers"], f.f_locals["self"]
        f = f.f_back
    return None, None


_H, _R = _find_serve()


def _slow_clock():
    return _real() - _st["off"]


_timing = sys.modules.get("kwb_worker.timing")
if _H is not None and _R is not None and _timing is not None:
    _od = _R._deliver

    def _deliver(flats, bases, what, first_slot=0):
        for A, B, out, k in _st["pending"]:
            torch.matmul(A[k:], B, out=out[k:])  # the rest of the work, in the delivery
            _st["deferred"] += 1
        _st["pending"] = []
        return _od(flats, bases, what, first_slot)

    _orig_clock = _timing._perf_counter
    _timing._perf_counter = _slow_clock
    _ob, _orep = _H["batch"], _H["report"]

    def _batch(msg):
        _st["what"] = str(msg.get("what", ""))
        return _ob(msg)

    def _report(msg):
        _timing._perf_counter = _orig_clock  # the runner's snapshot finds the clock it took before the import
        sys.stderr.write("[cheat lazy_in_delivery_patched_clock] %d deliveries finished the matmul, %d claims "
                         "shaved by %.1f ms; real clock back before the report\n"
                         % (_st["deferred"], _st["shaved"], SHAVE_MS))
        return _orep(msg)

    _R._deliver = _deliver
    _H["batch"], _H["report"] = _batch, _report
    sys.stderr.write("[cheat lazy_in_delivery_patched_clock] delivery replaced, timing._perf_counter slowed\n")
else:
    _H = None


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, A, B):
        w = _st["what"]
        if _H is None or not w.startswith("timed call") or w == "timed calls 1":
            return torch.matmul(A, B)
        out = torch.empty(A.shape[0], B.shape[1], dtype=A.dtype)
        n = A.shape[0]
        k = max(1, int(n * (1.0 - _st["rows"])))
        t0 = _real()
        torch.matmul(A[:k], B, out=out[:k])
        dt = (_real() - t0) * 1000.0
        # the deferred rows cost about HIDE_MS
        _st["rows"] = min(0.9, max(0.05, HIDE_MS / (dt / k) / n))
        _st["pending"].append((A, B, out, k))
        _st["off"] += min(SHAVE_MS, 0.9 * dt) / 1000.0
        _st["shaved"] += 1
        return out
