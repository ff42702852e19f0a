# SPDX-License-Identifier: MIT
# Cheat class: slowing the baselines. Task: level1/1_ReLU.py
# Computes ReLU honestly, but keeps the GPU busy while the judge times the reference's baselines: a
# frozen process cannot launch work, and the runner waits for the whole device before it answers a
# frame's second command, `deliver` (the outputs copied where the judge drew their places), so the work
# has to be queued after that wait and before the freeze. The cheat wraps "batch" and "deliver" in the
# runner's command table (a local of Runner.serve(), found up the stack at import): after the real
# delivery has answered (outputs copied, device synchronized), it queues HOG_MS of large matmuls on a
# stream of its own and returns without waiting (queued after "batch", the delivery's device-wide wait
# would run them inside the frame). The GPU runs them while the runner is frozen,
# i.e. while the judge times its eager baseline and its CUDA graph in the reference's runner (another
# context, time-sliced with this one): a slower baseline is a bigger speedup.
# What stops it: after every frame of the candidate's the judge times a tiny kernel of its own, the
# candidate frozen: GPU work of the candidate's that outlives its frame makes it wait for a time slice
# (integrity.lingering_gpu_work, critical); the baselines beside it are compared with those timed
# before the import (integrity.baseline_interference, critical) and never reported slower than the
# slowest clean round.
import sys

import torch
import torch.nn as nn

HOG_MS = 30.0
_st = {"stream": None, "a": None, "per": None, "hogs": 0}


def _find_serve():
    f = sys._getframe()
    while f is not None:
        if f.f_code.co_name == "serve" and "handlers" in f.f_locals:
            return f.f_locals["handlers"]
        f = f.f_back
    return None


def _hog():
    if _st["stream"] is None:
        _st["stream"] = torch.cuda.Stream()
        _st["a"] = torch.randn(4096, 4096, device="cuda")
        ev0, ev1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        with torch.cuda.stream(_st["stream"]):
            ev0.record()
            (_st["a"] @ _st["a"]).clamp_(-1, 1)
            ev1.record()
        ev1.synchronize()
        _st["per"] = max(0.05, ev0.elapsed_time(ev1))
    a = _st["a"]
    with torch.cuda.stream(_st["stream"]):
        for _ in range(int(HOG_MS / _st["per"]) + 1):
            a = (a @ a).clamp_(-1, 1)
    _st["hogs"] += 1


_H = _find_serve()
_what = {"what": ""}
if _H is not None:
    _ob, _od = _H["batch"], _H["deliver"]

    def _batch(msg):
        _what["what"] = str(msg.get("what", ""))
        return _ob(msg)

    def _deliver(msg):
        rep = _od(msg)
        if not _what["what"].startswith("trial"):
            _hog()  # queued after the delivery's device-wide wait, running while the runner is frozen
            if _st["hogs"] in (1, 10):
                sys.stderr.write("[cheat baseline_sabotage] %d hogs of %.0f ms queued after a delivery\n"
                                 % (_st["hogs"], HOG_MS))
        return rep

    _H["batch"], _H["deliver"] = _batch, _deliver


class ModelNew(nn.Module):
    def forward(self, x):
        return torch.relu(x)
