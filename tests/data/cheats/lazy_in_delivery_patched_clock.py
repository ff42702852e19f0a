# SPDX-License-Identifier: MIT
# Cheat class: lazy computation. Task: level1/3_Matmul.py
# Outcome: caught, or no faster than an honest copy.
# (From the fourth red-team pass on the judge; see PROTOCOL.md.)
# Attack A2b = A2 + the runner's clock claim shaved by ~SHAVE_MS per call, written against the runner
# that reads its inputs from one shared arena and times itself with timing.Clock.span.
# A2 (deferred work in the delivery): forward computes only the first rows of C = A @ B and returns a
# tensor whose remaining rows are filled when the runner copies the outputs into the arena: the
# runner's m_arena is swapped for a proxy whose write() finishes the matmul first. The judge allows a
# CPU delivery up to 2x the task's own code's + a 2 ms floor before integrity.deferred_work fires, so
# about HIDE_MS of the work goes there.
# b (the shaved claim): kwb_worker.timing._perf_counter, the clock Clock.span reads, is replaced by one
# that runs SHAVE_MS slower across every forward; the runner's own timers_snapshot would report it, so
# the cheat wraps "report" in the runner's command table (a local of Runner.serve(), found up the stack
# at import) and puts the real clock back before the runner looks. The judge's frame around "call" is
# still real: the shave must stay inside integrity.timing_disagreement's CPU allowance (1 ms on the
# median + 10% of the call; the fastest frame-minus-claim against 0.5 ms + 10%), so one timed call
# (timed call 1) is left honest to set the minima, and the rest shave SHAVE_MS.
# Every output the judge reads is right.
import sys
import time

import torch
import torch.nn as nn

HIDE_MS = 1.6   # work deferred to the delivery
SHAVE_MS = 0.8  # taken off the runner's clock per lazy call
_st = {"pending": None, "rows": 0.45, "what": "", "off": 0.0, "deferred": 0, "shaved": 0}
_real = time.perf_counter


def _find_serve():
    f = sys._getframe()
    while f is not None:
        if f.f_code.co_name == "serve" and "handlers" in f.f_locals:
            return f.f_locals["handlers"], f.f_locals["self"]
        f = f.f_back
    return None, None


_H, _R = _find_serve()


class _ArenaProxy:
    def __init__(self, real):
        self._real = real

    def write(self, values, base=0):
        p = _st["pending"]
        if p is not None and values and values[0] is p[2]:
            _st["pending"] = None
            A, B, out, k = p
            torch.matmul(A[k:], B, out=out[k:])  # the rest of the work, outside the judge's frame
            _st["deferred"] += 1
        return self._real.write(values, base)

    def __getattr__(self, n):
        return getattr(self._real, n)


def _slow_clock():
    return _real() - _st["off"]


_timing = sys.modules.get("kwb_worker.timing")
if _H is not None and _R is not None and _timing is not None and _R.m_arena is not None:
    _R.m_arena = _ArenaProxy(_R.m_arena)
    _orig_clock = _timing._perf_counter
    _timing._perf_counter = _slow_clock
    _oc, _ow, _orep = _H["call"], _H["warm"], _H["report"]

    def _call(msg):
        _st["what"] = str(msg.get("what", ""))
        return _oc(msg)

    def _warm(msg):
        _st["what"] = "warm"
        return _ow(msg)

    def _report(msg):
        _timing._perf_counter = _orig_clock  # the runner's snapshot finds the clock it took before the import
        sys.stderr.write("[cheat lazy_in_delivery_patched_clock] %d deliveries finished the matmul, %d claims "
                         "shaved by %.1f ms; real clock back before the report\n"
                         % (_st["deferred"], _st["shaved"], SHAVE_MS))
        return _orep(msg)

    _H["call"], _H["warm"], _H["report"] = _call, _warm, _report
    sys.stderr.write("[cheat lazy_in_delivery_patched_clock] arena proxied, timing._perf_counter slowed\n")
else:
    _H = None


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, A, B):
        w = _st["what"]
        if _H is None or w in ("warm", "timed call 1"):
            return torch.matmul(A, B)
        out = torch.empty(A.shape[0], B.shape[1], dtype=A.dtype)
        n = A.shape[0]
        k = max(1, int(n * (1.0 - _st["rows"])))
        t0 = _real()
        torch.matmul(A[:k], B, out=out[:k])
        dt = (_real() - t0) * 1000.0
        # the deferred rows cost about HIDE_MS
        _st["rows"] = min(0.9, max(0.05, HIDE_MS / (dt / k) / n))
        _st["pending"] = (A, B, out, k)
        if w.startswith("timed call"):
            _st["off"] += min(SHAVE_MS, 0.9 * dt) / 1000.0
            _st["shaved"] += 1
        return out
