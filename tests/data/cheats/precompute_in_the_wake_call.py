# SPDX-License-Identifier: MIT
# Cheat class: work before the timed window. Task: level1/3_Matmul.py
# Outcome: caught, or no faster than an honest copy.
# (From the second red-team pass on the judge, ported to the one-clock judge.)
# The judge writes a batch's inputs into the runner's arena while the runner is frozen, then thaws it
# and sends "batch". The old cheat spent the runner's wait for the call watching the arena for the
# judge's write; there is no such wait now, so a watcher thread (started at import, found the Runner up
# the stack) polls the last values of slot 0's B in the arena every ~50 us, and as soon as they change
# (the judge's write is complete: the last input is written last) it computes the first rows of A @ B
# (about PRE_MS of the work) from the arena, hoping to be done before the runner's main thread has
# even read the "batch" message. forward() checks its inputs against those rows' operands
# (torch.equal: the output is always right) and computes only the rest. The report logs how many
# precomputations started before the batch command did, and how many were found while the runner was
# frozen (none can be: a frozen thread does not run). One timed round (timed calls 1) is left honest.
# What stops it: the inputs appear only while everything of the candidate's is frozen, and the judge's
# frame starts before the thaw; whatever the watcher does after it is in the frame.
import sys
import threading
import time

import torch
import torch.nn as nn

PRE_MS = 1.0
POLL_S = 0.00005
_real = time.perf_counter
_st = {"what": "", "cache": None, "per_row": None, "pre": 0, "early": 0, "in_batch": False, "stale": 0}
_lock = threading.Lock()


def _find_serve():
    f = sys._getframe()
    while f is not None:
        if f.f_code.co_name == "serve" and "handlers" in f.f_locals:
            return f.f_locals["handlers"], f.f_locals["self"]
        f = f.f_back
    return None, None


_H, _R = _find_serve()


def _precompute(A, B):
    k = max(1, min(A.shape[0] - 1, int(PRE_MS / _st["per_row"])))
    a, b = A[:k].clone(), B.clone()
    part = torch.matmul(a, b)
    with _lock:
        _st["cache"] = (a, b, part)
        _st["pre"] += 1
        _st["early"] += int(not _st["in_batch"])


def _watch():
    tail = None
    while True:
        time.sleep(POLL_S)
        try:
            if not _R.m_inputs or _st["per_row"] is None:
                continue
            A, B = _R.m_inputs[0][:2]
            now = B[-1, -8:].clone()
            if tail is not None and not torch.equal(now, tail) and _st["what"].startswith("timed calls"):
                _precompute(A, B)
            tail = now
        except Exception:
            pass


if _H is not None and _R is not None:
    _ob = _H["batch"]

    def _batch(msg):
        _st["in_batch"] = True
        _st["what"] = str(msg.get("what", ""))
        try:
            return _ob(msg)
        finally:
            _st["in_batch"] = False

    def _report(msg, _orep=_H["report"]):
        sys.stderr.write("[cheat precompute_in_the_wake_call] %d calls had %.1f ms of rows precomputed by the "
                         "watcher, %d of them begun before the runner had read the 'batch' command; %d found "
                         "stale\n" % (_st["pre"], PRE_MS, _st["early"], _st["stale"]))
        return _orep(msg)

    _H["batch"], _H["report"] = _batch, _report
    threading.Thread(target=_watch, daemon=True).start()
    sys.stderr.write("[cheat precompute_in_the_wake_call] watcher thread on the arena started\n")


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, A, B):
        with _lock:
            c, _st["cache"] = _st["cache"], None
        if c is not None and _st["what"] != "timed calls 1":
            a, b, part = c
            k = a.shape[0]
            if torch.equal(A[:k], a) and torch.equal(B, b):
                out = torch.empty(A.shape[0], B.shape[1], dtype=A.dtype)
                out[:k] = part
                torch.matmul(A[k:], B, out=out[k:])
                return out
            _st["stale"] += 1
        t0 = _real()
        out = torch.matmul(A, B)
        _st["per_row"] = (_real() - t0) * 1000.0 / A.shape[0]
        return out
