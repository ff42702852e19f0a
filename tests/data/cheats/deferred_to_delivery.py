# SPDX-License-Identifier: MIT
# Cheat class: lazy computation. Task: level1/1_ReLU.py
# forward() returns an unwritten tensor at once; the real work (an expensive 6 ms kernel, emulated)
# is done when the evaluator copies the output out. The runner answers the judge's commands from a
# table of bound methods built in Runner.serve() before the candidate is imported (patching the class's
# `deliver` would not reach it), so the cheat finds that table up the stack while it is imported and
# replaces its "deliver" entry: the judge frames "call" with its wall clock, and the work lands in the
# "deliver" that follows, which copies the outputs into the runner's arena. The outputs are always
# right; only the judge's clock around the delivery (integrity.deferred_work) can see the work.
import sys
import time

import torch
import torch.nn as nn

_pending = []
_said = {"hooked": False, "worked": 0}


def _work(x, out):
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < 0.006:
        pass
    out.copy_(torch.relu(x))


def _handlers():
    f = sys._getframe()
    while f is not None:
        if f.f_code.co_name == "serve" and "handlers" in f.f_locals:
            return f.f_locals["handlers"]
        f = f.f_back
    return None


_H = _handlers()
if _H is not None:
    _orig = _H["deliver"]

    def _deliver(msg):
        for out, x in _pending:
            _work(x, out)
        if _pending:
            _said["worked"] += 1
            if _said["worked"] in (1, 10):
                sys.stderr.write("[cheat deferred_to_delivery] %d deliveries did the forward's 6 ms of work "
                                 "(this one: %s)\n" % (_said["worked"], msg.get("what")))
        del _pending[:]
        return _orig(msg)

    _H["deliver"] = _deliver
    sys.stderr.write("[cheat deferred_to_delivery] replaced the runner's 'deliver' command\n")


class ModelNew(nn.Module):
    def forward(self, x):
        if _H is None:  # no runner to hook: be honest
            return torch.relu(x)
        out = torch.empty_like(x)
        _pending[:] = [(out, x.clone())]  # only the last forward's output is delivered
        return out
