# SPDX-License-Identifier: MIT
# Cheat class: racing the judge for the shared outputs. Task: level1/3_Matmul.py
# (From the red-team pass on the judge, ported to the one-clock judge.)
# Deferred work after delivery / racing the judge. In timed batches forward computes only the first
# FRAC of the rows. The runner's delivery of the batch (Runner._deliver, run by the frame's second
# command `deliver`, replaced on the Runner instance found up the stack at import) computes more rows
# synchronously for SYNC_MS, lets the real delivery copy the outputs into the shared arena, and before
# the delivery answers starts a thread that
# computes the remaining rows straight into the arena's output slot (views of the shared memory the
# judge reads, at the offsets the layout names): the answer goes out while the thread runs, racing
# the judge's read. The thread logs when it finished and the longest pause it saw between two chunks
# (a pause is the runner's processes frozen). Correctness trials are computed honestly.
# What stops it: the judge freezes the runner and all its threads as soon as the delivery has answered,
# and reads the outputs only after the round, still frozen: the rows the thread had left are missing
# (wrong_result in a timed call), and what it did before the freeze was inside nobody's favour: the
# thread resumes only in the runner's next frame.
import sys
import threading
import time

import torch
import torch.nn as nn

FRAC, SYNC_MS, CHUNK = 0.4, 1.0, 8
_pc = time.perf_counter
_st = {"timed": False, "pending": [], "races": 0, "sent": None}


def _find_serve():
    f = sys._getframe()
    while f is not None:
        if f.f_code.co_name == "serve" and "handlers" in f.f_locals:
            return f.f_locals["handlers"], f.f_locals["self"]
        f = f.f_back
    return None, None


_H, _R = _find_serve()


def _race(A, B, view, r, t_reply):
    n, gap, last = A.shape[0], 0.0, _pc()
    r0 = r
    while r < n:
        torch.matmul(A[r:r + CHUNK], B, out=view[r:r + CHUNK])
        r += CHUNK
        now = _pc()
        gap, last = max(gap, now - last), now
    _st["races"] += 1
    if _st["races"] <= 3:
        sent = _st["sent"]
        sys.stderr.write("[cheat race_after_delivery] race %d: rows %d..%d written into the arena, done %.2f ms "
                         "after the delivery returned (the answer went out %s), longest pause %.2f ms\n"
                         % (_st["races"], r0, n, (_pc() - t_reply[0]) * 1000.0,
                            "%.2f ms after it" % ((sent - t_reply[0]) * 1000.0) if sent else "later", gap * 1000.0))


if _H is not None and _R is not None:
    _ob, _od = _H["batch"], _R._deliver

    def _batch(msg):
        _st["timed"] = str(msg.get("what", "")).startswith("timed")
        return _ob(msg)

    def _deliver(flats, bases, what, first_slot=0):
        pending, _st["pending"] = _st["pending"], []
        rows = []
        for A, B, out, r in pending:
            t0 = _pc()
            while r < A.shape[0] and (_pc() - t0) * 1000.0 < SYNC_MS / max(1, len(pending)):
                torch.matmul(A[r:r + CHUNK], B, out=out[r:r + CHUNK])
                r += CHUNK
            rows.append(r)
        layouts = _od(flats, bases, what, first_slot)
        for k, ((A, B, out, _), r) in enumerate(zip(pending, rows)):
            if r >= A.shape[0]:
                continue
            e = layouts[k][0]
            view = _R.m_arena.view(e["off"], torch.float32, e["shape"])
            t_reply = [_pc()]
            _st["sent"] = None
            if _st["races"] == 0 and k == 0:
                sys.stderr.write("[cheat race_after_delivery] %s: the delivery returns with rows %d..%d left to "
                                 "a thread writing into the arena\n" % (what, r, A.shape[0]))
            threading.Thread(target=_race, args=(A, B, view, r, t_reply), daemon=True).start()
        return layouts

    _H["batch"], _R._deliver = _batch, _deliver
    _osend = _R.m_wire.send

    def _send(msg, fds=()):
        r = _osend(msg, fds)
        _st["sent"] = _pc()  # when the answer left (the log says whether the race finished before it)
        return r

    _R.m_wire.send = _send
    sys.stderr.write("[cheat race_after_delivery] wrapped the runner's 'batch' and its delivery\n")


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        if not _st["timed"] or _R is None:
            return torch.matmul(A, B)
        out = torch.empty(A.shape[0], B.shape[1])
        a = int(A.shape[0] * FRAC)
        torch.matmul(A[:a], B, out=out[:a])
        _st["pending"].append((A.clone(), B.clone(), out, a))
        return out
