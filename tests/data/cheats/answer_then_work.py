# SPDX-License-Identifier: MIT
# Cheat class: racing the judge for the shared outputs. Task: level1/1_ReLU.py
# Outcome: caught, or no faster than an honest copy.
# (Red-team pass on the one-clock judge; ported to the two-command frame.) The judge's frame ends when
# the answer to `deliver` (the second command of a frame: where each call's outputs go, drawn once the
# calls are done) arrives; it freezes the runner only after that, and reads the lane's CPU time for
# integrity.work_while_stopped once the freeze is complete. So the runner keeps running, unframed and
# uncounted, from that answer until the judge's freeze lands (the judge must get a core, write
# cgroup.freeze, and every thread must reach the freezer's trap). This candidate measures that window
# after every frame (it keeps working after its answer until a pause of more than 1 ms says it was
# frozen) and then moves work into it: in each timed batch the last M calls return an unwritten tensor
# (the runner copies it into the arena as usual) and, once the delivery's answer has gone out (the
# runner's Wire.send, wrapped on the instance found up the stack at import; the reply that carries
# "layouts"), the runner's main thread computes those M ReLUs straight into their output places in the
# arena, which that very reply names. M is sized so the work takes a fifth of the shortest window seen
# so far (at most a quarter of the batch); a batch whose late work was cut by the freeze would be wrong
# when the judge reads it, so it stays careful. The windows and the calls moved are logged.
# What stops it: a CPU-starved judge is slow to freeze, but a frame's figure needs every output right
# when the judge reads them: the safe share of the window is its shortest, a small part of a frame.
# (The CPU time the runner uses between its answer and the freeze is in no frame and in no gap: the
# judge reads the lane's CPU time after the freeze. A judge that read it at the answer would count it.)
import statistics
import sys
import time

import torch
import torch.nn as nn

_pc = time.perf_counter
SHARE = 0.2  # of the shortest window seen, for the work moved after the answer
_st = {"mode": "honest", "late": [], "windows": [], "per_call": None, "M": 0, "moved": 0, "cut": 0, "what": "",
       "i": 0}


def _find_serve():
    f = sys._getframe()
    while f is not None:
        if f.f_code.co_name == "serve" and "handlers" in f.f_locals:
            return f.f_locals["handlers"], f.f_locals["self"]
        f = f.f_back
    return None, None


_H, _R = _find_serve()


def _after_answer(late, layouts):
    """Runs after the delivery's answer went out: the late calls into the arena where that answer says
    their outputs lie, then the window measured."""
    t0 = last = _pc()
    cut = False
    for i, x in late:
        e = layouts[i][0]
        view = _R.m_arena.view(e["off"], x.dtype, x.shape)
        torch.clamp(x, min=0.0, out=view)
        now = _pc()
        if now - last > 0.001:
            cut = True  # frozen between two calls: the later ones came after the judge's read
        last = now
    if late:
        _st["moved"] += len(late)
        _st["cut"] += int(cut)
    while True:
        now = _pc()
        if now - last > 0.001 or now - t0 > 0.05:
            break
        last = now
    if not cut and now - t0 <= 0.05:
        _st["windows"].append((last - t0) * 1000.0)
        if len(_st["windows"]) <= 12:
            sys.stderr.write("[cheat answer_then_work] %s: window %.3f ms after the answer, %d calls done in it\n"
                             % (_st["what"], _st["windows"][-1], len(late)))
    elif late:
        sys.stderr.write("[cheat answer_then_work] %s: %d late calls cut by the freeze\n" % (_st["what"], len(late)))


if _H is not None and _R is not None:
    _ob = _H["batch"]

    def _batch(msg):
        what = str(msg.get("what", ""))
        slots = list(msg.get("slots") or [0])
        n = len(slots)
        _st["what"] = what
        _st["i"] = 0
        _st["late"] = []
        if what.startswith("timed calls") and what != "timed calls 0" and _st["windows"] and _st["per_call"]:
            _st["M"] = max(0, min(n // 4, int(SHARE * min(_st["windows"]) / _st["per_call"])))
            _st["mode"] = "late"
            _st["first_late"] = n - _st["M"]
        else:
            _st["mode"] = "honest"
        t0 = _pc()
        rep = _ob(msg)
        if _st["mode"] == "honest" and what in ("warm-up calls", "timed calls 0"):
            t1 = _pc()
            for k in slots:
                torch.relu(_R.m_inputs[k][0])
            per = (_pc() - t1) * 1000.0 / n
            _st["per_call"] = min(_st["per_call"] or 1e9, per)
        _st["mode"] = "honest"
        return rep

    _osend = _R.m_wire.send

    def _send(msg, fds=()):
        r = _osend(msg, fds)
        if isinstance(msg, dict) and "layouts" in msg:
            late, _st["late"] = _st["late"], []
            _after_answer(late, msg["layouts"])
        return r

    def _report(msg, _orep=_H["report"]):
        w = _st["windows"]
        sys.stderr.write("[cheat answer_then_work] windows between the answer and the freeze (ms): min %.3f median "
                         "%.3f max %.3f (%d); %d calls computed after the answer, %d batches cut by the freeze; "
                         "a ReLU here %.4f ms\n" % (min(w) if w else -1, statistics.median(w) if w else -1,
                                                   max(w) if w else -1, len(w), _st["moved"], _st["cut"],
                                                   _st["per_call"] or -1))
        return _orep(msg)

    _R.m_wire.send = _send
    _H["batch"], _H["report"] = _batch, _report


class ModelNew(nn.Module):
    def forward(self, x):
        i = _st["i"]
        _st["i"] += 1
        if _R is None or _st["mode"] != "late" or i < _st["first_late"]:
            return torch.relu(x)
        _st["late"].append((i, x))  # computed once the delivery has said where its outputs lie
        return torch.empty_like(x)
