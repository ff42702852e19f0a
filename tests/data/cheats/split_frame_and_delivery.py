# SPDX-License-Identifier: MIT
# Cheat class: choosing which calls are slow. Task: level1/3_Matmul.py
# Outcome: caught, or no faster than an honest copy.
# (From the fifth red-team pass, ported to the one-clock judge.) Attack 1, "disjoint outliers": the
# old judge checked the median of (frame - claim) and, separately, the median of the delivery time.
# Here, by timed round: one in five is honest; even rounds hide the whole batch's work in the "batch"
# handler before the runner's clock starts (the command table, a local of Runner.serve() found up the
# stack at import) and claim a fifth of an honest batch; odd rounds return unwritten outputs and do
# the matmuls in the batch's delivery (Runner._deliver, run by the frame's second command `deliver`,
# replaced on the instance), spinning in forward
# so that the runner's own clock tells the truth about a fifth of an honest call. Every output is
# right. What stops it: each figure is the judge's frame around both commands, delivery included,
# less the lane's dry plumbing from before the import; there is no second median to split between.
import sys
import time

import torch
import torch.nn as nn

_state = {"mode": "honest", "stash": [], "honest_ms": [], "pre": {}, "framed": 0, "delivered": 0}
CLAIM_FRACTION = 0.2


def _mode_for(what):
    # "timed calls N" (N = 1..repeat) are the reported rounds; everything else honest
    if not what.startswith("timed calls "):
        return "honest"
    try:
        n = int(what.split()[-1])
    except ValueError:
        return "honest"
    if n % 5 == 1:
        return "honest"
    return "frame" if n % 2 == 0 else "deliver"


def _honest_ref():
    hm = sorted(_state["honest_ms"])
    return hm[len(hm) // 2] if hm else 1.0


def _install():
    f = sys._getframe()
    handlers = runner = None
    while f is not None:
        if f.f_code.co_name == "serve" and "handlers" in f.f_locals:
            handlers, runner = f.f_locals["handlers"], f.f_locals["self"]
            break
        f = f.f_back
    if handlers is None:
        return
    orig_batch, orig_deliver = handlers["batch"], runner._deliver

    def batch(msg):
        _state["mode"] = _mode_for(str(msg.get("what", "")))
        slots = list(msg.get("slots") or [0])  # the input slot of each call, in order
        n = len(slots)
        if _state["mode"] == "frame":
            _state["framed"] += 1
            for k in slots:
                A, B = runner.m_inputs[k][:2]
                _state["pre"][A.data_ptr()] = torch.matmul(A, B)
        reply = orig_batch(msg)
        _state["pre"] = {}
        if isinstance(reply.get("ms"), (int, float)):
            if _state["mode"] == "honest":
                _state["honest_ms"].append(reply["ms"] / n)
            elif _state["mode"] == "frame":
                reply["ms"] = _honest_ref() * CLAIM_FRACTION * n
        _state["mode"] = "honest"
        return reply

    def deliver(flats, bases, what, first_slot=0):
        if _state["stash"]:
            _state["delivered"] += 1
        for A, B, out in _state["stash"]:
            torch.matmul(A, B, out=out)   # the work, done while the judge waits for the batch's answer
        _state["stash"] = []
        return orig_deliver(flats, bases, what, first_slot)

    def report(msg, _orep=handlers["report"]):
        sys.stderr.write("[cheat split_frame_and_delivery] %d batches computed in the 'batch' handler before the "
                         "runner's clock, %d batches' matmuls done in the delivery\n"
                         % (_state["framed"], _state["delivered"]))
        return _orep(msg)

    handlers["batch"], handlers["report"], runner._deliver = batch, report, deliver
    sys.stderr.write("[cheat split_frame_and_delivery] wrapped 'batch', 'report' and the runner's delivery\n")


_install()


class ModelNew(nn.Module):
    def forward(self, A, B):
        if _state["mode"] == "frame":
            got = _state["pre"].pop(A.data_ptr(), None)
            if got is not None:
                return got
        if _state["mode"] == "deliver":
            out = torch.empty(A.shape[0], B.shape[1])
            _state["stash"].append((A, B, out))
            target = _honest_ref() * CLAIM_FRACTION
            t0 = time.perf_counter()
            while time.perf_counter() - t0 < target / 1000.0:  # this call's own clock then tells the truth
                pass
            return out
        return torch.matmul(A, B)
