# SPDX-License-Identifier: MIT
# Cheat class: choosing which calls are slow. Task: level1/1_ReLU.py
# Outcome: caught, or no faster than an honest copy.
# (Red-team pass on the one-clock judge.) A timed frame is K forward calls back to back, call k on slot
# k's inputs, and the judge writes all K input sets into the runner's arena before the frame: when the
# first call of a batch runs, every other call's inputs are already there, at a fixed stride. So the
# call on slot 0 computes the whole batch in one operation over a strided view of all K input slots
# (the Runner, found up the stack at import, says where they lie) and the calls on slots 1..K-1 return
# their slice of that result: one dispatch (on a GPU, one kernel launch) instead of K, and no other
# call does any work. The call's place in the batch and the batch's slots are read from the runner's
# loop (Runner.batch's calls(), up the stack). The runner's command table is not touched; every output
# is right and is copied into the arena by the runner as usual. Correctness trials (one call on a
# random slot) are computed alone.
# What stops it: nothing forbids it; the frame charges whatever the K calls took together. On a CPU a
# 7 us ReLU is not dispatch-bound enough for one pass over K sets to beat K cached passes (a gain at
# most of the per-call dispatch, ~1.1x); on a GPU, where the task's own calls are launch-bound, one
# launch for K calls is a throughput figure reported as a latency (the GPU check should count it).
import sys

import torch
import torch.nn as nn


def _find_runner():
    f = sys._getframe()
    while f is not None:
        if f.f_code.co_name == "serve" and "handlers" in f.f_locals:
            return f.f_locals["self"]
        f = f.f_back
    return None


_R = _find_runner()
_st = {"ptrs": None, "inputs": None, "batch": None, "fused": 0}


def _batch_call():
    """(slots, i): the batch's input slots and this call's place among them (a local and a free variable of
    the runner's loop, Runner.batch's calls()); None outside a batch."""
    f = sys._getframe(1)
    while f is not None:
        if f.f_code.co_name == "calls" and "slots" in f.f_locals and "i" in f.f_locals:
            return f.f_locals["slots"], int(f.f_locals["i"])
        f = f.f_back
    return None


def _all_slots(x, n):
    """A view of slots 0..n-1's inputs, from slot 0's at the slots' stride (slot 0's view in the arena: the
    call's own x may be a copy the runner made, chain.py)."""
    ins = _R.m_inputs[:n]
    if len(ins) < 2:
        return None
    x = ins[0][0]
    stride = ins[1][0].storage_offset() - ins[0][0].storage_offset()
    if stride <= 0 or any(ins[k][0].storage_offset() != x.storage_offset() + k * stride for k in range(len(ins))):
        return None
    return x.as_strided((len(ins),) + tuple(x.shape), (stride,) + tuple(x.stride()), x.storage_offset())


class ModelNew(nn.Module):
    def forward(self, x):
        got = _batch_call() if _R is not None else None
        if got is None:
            return torch.relu(x)
        slots, i = got
        if i == 0:
            _st["batch"] = None
            if len(slots) < 2 or list(slots) != list(range(len(slots))):
                return torch.relu(x)  # a trial (one call, any slot)
            xs = _all_slots(x, len(slots))
            if xs is None:
                return torch.relu(x)
            _st["batch"] = (slots, torch.relu(xs))  # the whole batch, every slot as the judge wrote it before the frame
            _st["fused"] += 1
            if _st["fused"] in (1, 10):
                sys.stderr.write("[cheat one_call_for_the_batch] batch %d: %d calls computed in one ReLU over the "
                                 "strided slots\n" % (_st["fused"], len(slots)))
            return _st["batch"][1][0]
        if _st["batch"] is not None and _st["batch"][0] is slots and i < _st["batch"][1].shape[0]:
            return _st["batch"][1][i]
        return torch.relu(x)
