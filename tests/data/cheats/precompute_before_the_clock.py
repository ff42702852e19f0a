# SPDX-License-Identifier: MIT
# Cheat class: work before the timed window. Task: level1/1_ReLU.py
# Outcome: caught, or no faster than an honest copy.
# (Ported to the one-clock judge.) The whole batch's forwards, done after the judge has written every
# input set of the batch into the runner's arena (all of them before the frame) but before the
# runner's own clock starts: the runner's "batch" command is wrapped in its command table (a local of
# Runner.serve(), found up the stack at import); the wrapper reads each slot's input where the runner's
# slots name it in the arena (Runner.m_inputs), computes the ReLUs, and only then lets the real
# "batch" run, whose forwards return the answers they find waiting (the batch's slots are its
# message's `slots`: call i on slot slots[i]). No clock is touched and every
# output is right: the work lies outside the runner's clock. What stops it: the figure is the judge's
# own frame from thawing the runner to its answer, which holds the wrapper as much as the calls; the
# runner's clock is a cross-check whose disagreement is only a warning.
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
_st = {"y": {}, "early": 0}
if _H is not None and _R is not None:
    _ob, _orep = _H["batch"], _H["report"]

    def _batch(msg):
        try:
            slots = list(msg.get("slots") or [0])  # each call's input slot
            _st["y"] = {_R.m_inputs[k][0].data_ptr(): torch.relu(_R.m_inputs[k][0]) for k in slots}
            _st["early"] += len(slots)
        except Exception:
            _st["y"] = {}
        try:
            return _ob(msg)
        finally:
            _st["y"] = {}

    def _report(msg):
        sys.stderr.write("[cheat precompute_before_the_clock] %d forwards computed before the runner's clock\n"
                         % _st["early"])
        return _orep(msg)

    _H["batch"], _H["report"] = _batch, _report


class ModelNew(nn.Module):
    def forward(self, x):
        # The answer waiting is this call's: the runner's forward reads the very arena values the
        # wrapper read a moment before (the runner is the only one writing there while it runs).
        y = _st["y"].pop(x.data_ptr(), None)
        return y if y is not None else torch.relu(x)
