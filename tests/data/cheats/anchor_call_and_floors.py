# SPDX-License-Identifier: MIT
# Cheat class: choosing which calls are slow. Task: level2/1_Linear_GELU_Scale.py
# Outcome: caught, or no faster than an honest copy.
# (From the fifth red-team pass, ported to the one-clock judge.) Attack 3, "one anchor, absolute
# floors": one honest timed round sets the minima; in every other timed batch each call computes only
# part of its rows in forward and leaves the rest to the batch's delivery (the runner's copy of the
# outputs into the arena: Runner._deliver, run by the frame's second command `deliver`, replaced on the
# runner instance, found up the stack at import), and the runner's own clock of the batch is shaved by HIDE_FRAME_MS a call (the old judge
# tolerated a fixed floor of delivery time and of frame beyond the claim on a CPU). Every output the
# judge reads is right. What stops it: there is no allowance to fit under: the delivery is inside the
# judge's frame (thaw to the delivery's answer), the runner's clock is only a cross-check (timing_disagreement, a
# warning), and the figure is the frame less the lane's dry plumbing: what it hid is charged in full.
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

HIDE_SHARE = 0.4  # rows of each call left to the delivery
HIDE_FRAME_MS = 0.40  # taken off the runner's clock per call
_state = {"mode": "honest", "stash": [], "hidden": 0}


def _find_serve():
    f = sys._getframe()
    while f is not None:
        if f.f_code.co_name == "serve" and "handlers" in f.f_locals:
            return f.f_locals["handlers"], f.f_locals["self"]
        f = f.f_back
    return None, None


def _install():
    handlers, runner = _find_serve()
    if handlers is None:
        return
    orig_batch, orig_deliver = handlers["batch"], runner._deliver

    def batch(msg):
        what = str(msg.get("what", ""))
        _state["mode"] = "cheat" if what.startswith("timed calls ") and what != "timed calls 1" else "honest"
        reply = orig_batch(msg)
        if _state["mode"] == "cheat" and isinstance(reply.get("ms"), (int, float)):
            reply["ms"] = max(0.05, reply["ms"] - HIDE_FRAME_MS * len(msg.get("slots") or [0]))
        _state["mode"] = "honest"
        return reply

    def deliver(flats, bases, what, first_slot=0):
        stash, _state["stash"] = _state["stash"], []
        for st in stash:
            st()  # the hidden rows, computed while the judge waits for the batch's answer
            _state["hidden"] += 1
        return orig_deliver(flats, bases, what, first_slot)

    def report(msg, _orep=handlers["report"]):
        sys.stderr.write("[cheat anchor_call_and_floors] %d calls left %.0f%% of their rows to the delivery\n"
                         % (_state["hidden"], 100 * HIDE_SHARE))
        return _orep(msg)

    handlers["batch"], handlers["report"] = batch, report
    runner._deliver = deliver


_install()


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, scale):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.scale = scale

    def _rows(self, x, out):
        out.copy_(F.gelu(self.linear(x)) * self.scale)

    def forward(self, x):
        if _state["mode"] != "cheat":
            return F.gelu(self.linear(x)) * self.scale
        n = x.shape[0]
        k = max(1, n - int(round(n * HIDE_SHARE)))
        out = torch.empty(n, self.linear.out_features)
        self._rows(x[:k], out[:k])
        xs = x[k:].clone()
        _state["stash"].append(lambda: self._rows(xs, out[k:]))
        return out
