# SPDX-License-Identifier: MIT
# Cheat class: lazy computation. Task: level1/3_Matmul.py
# (From the fourth red-team pass on the judge; see PROTOCOL.md.)
# Attack A2b = A2 + the runner's clock claim shaved to ~0.72x-0.3 ms of the forward's real time
# (patches kwb_worker.runner._perf_counter, which timers_snapshot does not watch).
# Attack A2 (deferred work into the delivery step): forward computes only part of C = A @ B and
# returns a tensor whose remaining rows are filled when the runner copies the outputs into the
# output arena (the runner's m_out is swapped for a proxy). The delivery may cost up to
# 3x the judge's own copy + 2 ms (CPU floor) before integrity.deferred_work fires, and the judge's
# per-call median ("judged") ignores the same amount. No clock patching in this variant.
import sys
import time
import torch
import torch.nn as nn

HIDE_MS = 1.6  # budget for the deferred part
_state = {"pending": None, "frac": 0.45}


class _OutProxy:
    def __init__(self, real):
        self._real = real

    def write(self, values, base=0):
        p = _state["pending"]
        if p is not None:
            _state["pending"] = None
            A, B, out, k = p
            torch.matmul(A[k:], B, out=out[k:])  # the rest of the work, outside the timed frame
        return self._real.write(values, base)

    def __getattr__(self, n):
        return getattr(self._real, n)


_clk = {"n": 0, "t0": 0.0}


def _fake_clock():
    _clk["n"] += 1
    if _clk["n"] % 2 == 1:
        _clk["t0"] = _real()
        return _clk["t0"]
    return _clk["t0"] + _state.get("claim_s", 0.0)


_real = time.perf_counter


def _hook():
    rmod = sys.modules.get("kwb_worker.runner")
    if rmod is not None and getattr(rmod, "_perf_counter", None) is not _fake_clock:
        rmod._perf_counter = _fake_clock
        _clk["n"] = 1  # we are inside a call: its t0 was taken with the real clock
        _clk["t0"] = _real()
    f = sys._getframe(2)
    while f is not None:
        r = f.f_locals.get("self")
        if r is not None and type(r).__name__ == "Runner" and hasattr(r, "m_out"):
            if not isinstance(r.m_out, _OutProxy) and r.m_out is not None:
                r.m_out = _OutProxy(r.m_out)
            return True
        f = f.f_back
    return False


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()
        self.hooked = False

    def forward(self, A, B):
        tf = time.perf_counter()
        if not self.hooked:
            self.hooked = _hook()
        out = torch.empty(A.shape[0], B.shape[1], dtype=A.dtype)
        n = A.shape[0]
        k = int(n * (1.0 - _state["frac"]))
        t0 = time.perf_counter()
        torch.matmul(A[:k], B, out=out[:k])
        dt = (time.perf_counter() - t0) * 1000.0
        # adapt the deferred fraction so the deferred part costs about HIDE_MS
        per_row = dt / max(k, 1)
        _state["frac"] = min(0.9, max(0.05, HIDE_MS / per_row / n))
        _state["pending"] = (A, B, out, k)
        dtf = (time.perf_counter() - tf) * 1000.0
        _state["claim_s"] = max(0.7 * (dtf + 0.35) - 0.3, 0.05) / 1000.0
        return out
