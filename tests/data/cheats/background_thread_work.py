# SPDX-License-Identifier: MIT
# Cheat class: work on another thread or stream. Task: level1/1_ReLU.py
# forward() returns an unwritten tensor at once and a thread fills the output 5 ms later, straight into
# the runner's arena, where the judge reads it: at the place the judge drew for that call's outputs once
# the calls were done (the `deliver` command's bases, recorded by the runner's delivery, Runner._deliver,
# wrapped on the instance found up the stack at import; the call's place in the batch is counted from
# the runner's "batch" command, wrapped in its command table). The runner's copy of the unwritten tensor
# lands first; the thread's write is meant to overwrite it before the judge looks. What stops it: the
# runner and every thread of it are frozen as soon as the delivery's answer is in, and the judge reads
# the outputs only then: the thread is still asleep (or frozen mid-write), the outputs are the unwritten
# tensor's bytes, and the call is wrong_result.
import sys
import threading
import time

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
_st = {"batch": 0, "i": 0, "bases": {}, "threads": 0, "written": 0, "late": 0}
_lock = threading.Lock()


def _fill(x, batch, i):
    time.sleep(0.005)
    t0 = time.time()
    while time.time() - t0 < 1.0:
        with _lock:
            base = _st["bases"].get((batch, i))
        if base is not None:
            break
        time.sleep(0.0005)
    else:
        return
    out = _R.m_arena.view(base, x.dtype, x.shape)
    out.copy_(torch.relu(x))
    with _lock:
        _st["written"] += 1
        if _st["batch"] != batch:
            _st["late"] += 1  # written after its own batch was over (the judge may have read it already)
        if _st["written"] in (1, 100):
            sys.stderr.write("[cheat background_thread_work] %d outputs written into the arena from threads (this one: "
                             "batch %d call %d, now in batch %d)\n" % (_st["written"], batch, i, _st["batch"]))


if _H is not None and _R is not None:
    _ob, _od = _H["batch"], _R._deliver

    def _batch(msg):
        with _lock:
            _st["batch"] += 1
            _st["i"] = 0
        return _ob(msg)

    def _deliver(flats, bases, what, first_slot=0):
        with _lock:
            for i, b in enumerate(bases):
                _st["bases"][(_st["batch"], i)] = b
            if _st["batch"] in (1, 10):
                sys.stderr.write("[cheat background_thread_work] %s: the places of %d calls' outputs handed to their "
                                 "threads (%d started so far, %d written)\n" % (what, len(bases), _st["threads"],
                                                                                _st["written"]))
        return _od(flats, bases, what, first_slot)

    def _report(msg, _orep=_H["report"]):
        sys.stderr.write("[cheat background_thread_work] %d threads started, %d outputs written into the arena "
                         "from a thread, %d of them after their batch was over\n"
                         % (_st["threads"], _st["written"], _st["late"]))
        return _orep(msg)

    _H["batch"], _H["report"], _R._deliver = _batch, _report, _deliver
    sys.stderr.write("[cheat background_thread_work] wrapped 'batch', 'report' and the runner's delivery\n")


class ModelNew(nn.Module):
    def forward(self, x):
        if _R is None:
            out = torch.empty_like(x)
            threading.Thread(target=lambda: (time.sleep(0.005), out.copy_(torch.relu(x))), daemon=True).start()
            return out
        with _lock:
            batch, i = _st["batch"], _st["i"]
            _st["i"] += 1
            _st["threads"] += 1
        threading.Thread(target=_fill, args=(x.clone(), batch, i), daemon=True).start()
        return torch.empty_like(x)
