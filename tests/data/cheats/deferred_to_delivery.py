# SPDX-License-Identifier: MIT
# Cheat class: lazy computation. Task: level1/1_ReLU.py
# Outcome: caught, or no faster than an honest copy.
# forward() returns an unwritten tensor at once; the real work (an expensive 6 ms kernel, emulated) is
# done when the runner copies the outputs out. The old judge framed the call with its wall clock and
# the delivery apart (integrity.deferred_work). Here the runner's delivery of a batch's outputs
# (Runner._deliver(flats, bases, what, first_slot), run by `deliver`, the frame's second command, once
# the judge has drawn where the outputs go; replaced on the Runner instance found up the stack at import:
# the command table holds bound methods, but _deliver is looked up on the instance at every delivery)
# does the 6 ms for every call of the batch before the real copy. The outputs are always right. What
# stops it: the delivery is inside the frame, which runs from thawing the runner for `batch` to its
# answer to `deliver`, the outputs copied included: every millisecond is in the candidate's figure (6 ms
# a call, against the task's ~0.04 ms), whatever the runner's own clock says.
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


def _runner():
    f = sys._getframe()
    while f is not None:
        if f.f_code.co_name == "serve" and "handlers" in f.f_locals:
            return f.f_locals["self"]
        f = f.f_back
    return None


_R = _runner()
if _R is not None:
    _orig = _R._deliver

    def _deliver(flats, bases, what, first_slot=0):
        for out, x in _pending:
            _work(x, out)
        if _pending:
            _said["worked"] += 1
            if _said["worked"] in (1, 10):
                sys.stderr.write("[cheat deferred_to_delivery] %d deliveries did the forwards' 6 ms of work each "
                                 "(this one: %s, %d calls)\n" % (_said["worked"], what, len(_pending)))
        del _pending[:]
        return _orig(flats, bases, what, first_slot)

    _R._deliver = _deliver
    sys.stderr.write("[cheat deferred_to_delivery] replaced the runner's delivery\n")


class ModelNew(nn.Module):
    def forward(self, x):
        if _R is None:  # no runner to hook: be honest
            return torch.relu(x)
        out = torch.empty_like(x)
        _pending.append((out, x.clone()))
        return out
