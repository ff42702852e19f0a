# SPDX-License-Identifier: MIT
# Cheat class: work before the timed window. Task: level1/3_Matmul.py
# Outcome: caught, or no faster than an honest copy.
# (From the second red-team pass on the judge; see PROTOCOL.md.)
# Against the runner whose inputs the judge writes into one shared arena (self.m_arena) INSIDE its
# wall-clock frame, right before it sends "call". Nothing of the next input set exists before that
# frame opens (the cheat checks: on every untimed "warm" command it compares the arena with the copy
# the last call read, and logs what it found), so the work can only move out of the runner's own
# clock, not out of the judge's frame. The cheat wraps the runner's Wire.recv: after a "warm" the
# runner waits for the next call awake (recv with spin_s); the wrapper spends that wait watching the
# arena for the judge's write, and as soon as the last input has landed, or else once the "call"
# message has arrived but before the runner's clock starts, it computes the first rows of A @ B
# (about PRE_MS of the work) from the arena. forward() checks its inputs against those rows' operands
# (torch.equal: the output is always right) and computes only the rest. One timed call (timed call 1)
# is left honest so the fastest frame-minus-claim stays the task's own; the rest hope to hide PRE_MS
# inside integrity.timing_disagreement's CPU allowance (1 ms on the median + 10% of the call).
import select
import sys
import time

import torch
import torch.nn as nn

PRE_MS = 1.0
_real = time.perf_counter
_st = {"layout": None, "what": "", "cache": None, "per_row": None, "pre": 0, "early": 0, "warm_seen": [],
       "said": False}


def _find_serve():
    f = sys._getframe()
    while f is not None:
        if f.f_code.co_name == "serve" and "handlers" in f.f_locals:
            return f.f_locals["handlers"], f.f_locals["self"]
        f = f.f_back
    return None, None


_H, _R = _find_serve()


def _precompute(layout, early):
    """The first rows of A @ B from what the arena holds now (before the runner's clock runs)."""
    if _st["per_row"] is None:
        return
    A, B = _R.m_arena.read(layout)[:2]
    k = max(1, min(A.shape[0] - 1, int(PRE_MS / _st["per_row"])))
    a, b = A[:k].clone(), B.clone()
    _st["cache"] = (a, b, torch.matmul(a, b))
    _st["pre"] += 1
    _st["early"] += int(early)


def _watch(wire, limit_s):
    """While the runner waits for the next call: the judge's write of the inputs, as soon as it lands."""
    lay = _st["layout"]
    if lay is None or _st["per_row"] is None:
        return
    B = _R.m_arena.read(lay)[1]
    tail = B[-1, -8:].clone()
    poll = select.poll()
    poll.register(wire.fileno(), select.POLLIN)
    end = _real() + limit_s
    while _real() < end:
        if not torch.equal(B[-1, -8:], tail):  # the last input is written last: the set is complete
            _precompute(lay, True)
            return
        if poll.poll(0):
            return  # the call came first: precomputed on its arrival


if _H is not None and _R is not None:
    _wire = sys.modules["kwb_worker.wire"]
    _orig_recv = _wire.Wire.recv
    _ow = _H["warm"]

    def _recv(self, timeout=None, spin_s=0.0):
        _st["cache"] = None
        try:
            if spin_s > 0 and _st["what"].startswith("timed call") and _st["what"] != "timed call 0":
                _watch(self, spin_s)
        except Exception:
            pass
        msg = _orig_recv(self, timeout, spin_s=0.0)
        try:
            if msg.get("cmd") == "call":
                what = str(msg.get("what", ""))
                if what.startswith("timed call") and what != "timed call 1" and _st["cache"] is None:
                    _precompute((msg["layouts"][0] if "layouts" in msg else msg["layout"]), False)
                _st["what"], _st["layout"] = what, (msg["layouts"][0] if "layouts" in msg else msg["layout"])
        except Exception:
            _st["cache"] = None
        return msg

    def _warm(msg):
        # Does the arena already hold the next call's inputs? (The judge writes them after this command.)
        try:
            seen = _R.m_arena.read((msg["layouts"][0] if "layouts" in msg else msg["layout"]))
            own = getattr(_R, "m_own", None) or []
            _st["warm_seen"].append(all(torch.equal(a, b) for a, b in zip(seen, own)))
        except Exception:
            pass
        return _ow(msg)

    def _report(msg, _orep=_H["report"]):
        ws = _st["warm_seen"]
        sys.stderr.write("[cheat precompute_in_the_wake_call] %d of %d warm commands found only the last call's "
                         "inputs in the arena; %d calls had %.1f ms of rows precomputed before the runner's clock "
                         "(%d of them while waiting for the call, from the judge's write)\n"
                         % (sum(ws), len(ws), _st["pre"], PRE_MS, _st["early"]))
        return _orep(msg)

    _wire.Wire.recv = _recv
    _H["warm"], _H["report"] = _warm, _report
    sys.stderr.write("[cheat precompute_in_the_wake_call] wrapped Wire.recv and the runner's 'warm'\n")


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, A, B):
        c, _st["cache"] = _st["cache"], None
        if c is not None:
            a, b, part = c
            k = a.shape[0]
            if torch.equal(A[:k], a) and torch.equal(B, b):
                out = torch.empty(A.shape[0], B.shape[1], dtype=A.dtype)
                out[:k] = part
                torch.matmul(A[k:], B, out=out[k:])
                return out
        t0 = _real()
        out = torch.matmul(A, B)
        _st["per_row"] = (_real() - t0) * 1000.0 / A.shape[0]
        return out
