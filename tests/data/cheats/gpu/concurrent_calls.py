# SPDX-License-Identifier: MIT
# Cheat class: work on another thread or stream. Task: level1/3_Matmul.py
# (Red-team pass on the one-clock judge; GPU only, written from reading the judge, not run.)
# A timed frame is K calls back to back, and the runner waits for the whole device before it copies
# the batch's outputs. A 256x256 matmul fills a few of an H100's SMs; K of them on one stream run one
# after the other, K of them on STREAMS streams run side by side. So every call of a batch but the
# first (the slot is known from the input's address among the runner's arena slots, the Runner found
# up the stack at import) launches its matmul on one of STREAMS side streams, after the current
# stream's work, and returns without waiting: the batch's K matmuls overlap, and the frame (one device
# wait at the end) holds a throughput, reported as each call's latency. The correctness trials (one call
# on a random slot, the only calls the runner's side-stream check looks at; told apart by the "batch"
# command's `what`, its command table wrapped) and slot 0 stay on the current stream. Every output is
# complete when the runner copies it (the device-wide wait before the delivery). Since then both
# runners get CUDA_DEVICE_MAX_CONNECTIONS=1: one hardware queue for every stream of the context. (Second
# red-team pass, from reading, not run: one queue orders the launches and adds false dependencies, but
# adjacent kernels of different streams with nothing between them may still run side by side, as on
# Fermi's single queue; this file issues them so. The GPU check must say whether the overlap is gone.)
# What should stop it: the side-stream check made in the timed batches too (any call's output changing
# between the current stream's wait and the device's), or a frame's calls serialised by the judge;
# otherwise only integrity.timing_disagreement (a warning: the runner's events on the current stream
# see little of the work) and the plausibility bound (10x; STREAMS keeps it under).
import sys

import torch
import torch.nn as nn

STREAMS = 4


def _find_runner():
    f = sys._getframe()
    while f is not None:
        if f.f_code.co_name == "serve" and "handlers" in f.f_locals:
            return f.f_locals["self"]
        f = f.f_back
    return None


_R = _find_runner()
_st = {"ptrs": None, "inputs": None, "streams": None, "what": ""}


def _find_handlers():
    f = sys._getframe()
    while f is not None:
        if f.f_code.co_name == "serve" and "handlers" in f.f_locals:
            return f.f_locals["handlers"]
        f = f.f_back
    return None


_H = _find_handlers()
if _H is not None:
    _ob = _H["batch"]

    def _batch(msg):
        _st["what"] = str(msg.get("what", ""))
        return _ob(msg)

    _H["batch"] = _batch


def _slot(x):
    if _st["inputs"] is not _R.m_inputs:
        _st["inputs"] = _R.m_inputs
        _st["ptrs"] = {v[0].data_ptr(): k for k, v in enumerate(_R.m_inputs) if v and isinstance(v[0], torch.Tensor)}
    return _st["ptrs"].get(x.data_ptr())


class ModelNew(nn.Module):
    def forward(self, A, B):
        k = _slot(A) if _R is not None else None
        if not k or not A.is_cuda or _st["what"].startswith("trial"):
            return torch.matmul(A, B)
        if _st["streams"] is None:
            _st["streams"] = [torch.cuda.Stream() for _ in range(STREAMS)]
        s = _st["streams"][k % STREAMS]
        cur = torch.cuda.current_stream()
        s.wait_stream(cur)
        with torch.cuda.stream(s):
            C = torch.matmul(A, B)
        C.record_stream(cur)
        return C
