# SPDX-License-Identifier: MIT
# Cheat class: poisoning the judge's calibration. Task: level1/1_ReLU.py
# Outcome: caught, or no faster than an honest copy.
# (Red-team passes on the one-clock judge.) A figure is (frame - the lane's fastest dry frame) / K, and a
# dry frame is K trivial forwards plus the runner's copy of K outputs into the arena: the plumbing
# subtracted from the candidate's frame holds the copy of its outputs. This candidate never pays that
# copy. The first version computed each ReLU into the view the runner would copy that call's outputs
# into (known before the calls then); the judge now draws each call's place (a slot and a 256-byte shift:
# 64 places or more) only once the calls are done, and sends it in a second command, `deliver`. So the
# work moves there: in a timed batch forward() returns its input as a placeholder (no work, no
# allocation), and the runner's delivery (Runner._deliver, replaced on the instance found up the stack
# at import; signature (flats, bases, what, first_slot)) computes each call's ReLU with out= straight
# into the arena view at the base the judge just drew (Runner._out_views, the runner's own geometry),
# and returns the layouts without any copy. The runner's aliasing observation lives in the original
# _deliver, which is never called for those batches. No clock, no command, no verdict is touched and
# every output is right. A ReLU into the arena costs about what the copy costs, so the frame is about the
# dry frame: left alone the figure falls to the 2% floor and integrity.implausible_speedup fires; a
# governor spins until the frame looks like a believable TARGET-times speedup (the dry batch and an
# honest batch are measured here, in-process, in the untimed warm-up and discarded rounds).
# What stops it: nothing yet. The delivery is inside the frame, but the copy the plumbing credits is never
# made: the work replaced it, and for a memory-bound task it costs what the copy costs (a ReLU of 60
# 16x4096 sets into the arena: 1.15 ms; their copy: 1.05 ms; an allocating ReLU: 2.08 ms). Measured
# (second pass, CPU, 60 calls a frame): candidate frames median 2.23 ms against the dry frames' 2.28 and
# eager's 3.41: 3.91x with no flag, an honest copy 1.02x right after it; beside an honest copy on a
# loaded machine 0.78-4.28x (median ~1.6x) against 0.58-1.41x (median ~0.8x).
# Suggested fix: never credit what a candidate can skip: subtract only the dry batch's frame up to its
# answer to `batch` (its delivery's copy left in every figure, eager's and the candidate's alike), which
# bounds the gain to one output copy a call; and time the two commands apart to say so when a frame's
# calls take no longer than a dry batch's while its delivery holds the work.
import sys
import time

import torch
import torch.nn as nn

TARGET = 4.0
_pc = time.perf_counter


def _find_serve():
    f = sys._getframe()
    while f is not None:
        if f.f_code.co_name == "serve" and "handlers" in f.f_locals:
            return f.f_locals["handlers"], f.f_locals["self"]
        f = f.f_back
    return None, None


_H, _R = _find_serve()
_st = {"dry": None, "honest": None, "mode": "honest", "t0": 0.0, "inplace": 0, "batches": 0, "what": "",
       "measured": 0}


def _views(sig, base):
    got = _R.m_outViews.get((sig, base))
    return got if got is not None else _R._out_views(sig, base)


def _measure(flats, bases, first_slot, od):
    """In-process, at a delivery of an untimed round: a dry batch (n trivial forwards and the runner's own
    delivery of n unwritten outputs) and an honest one (n ReLUs, delivered the same way), fastest of three."""
    n = len(flats)
    xs = [_R.m_inputs[k][0] for k in range(min(n, len(_R.m_inputs)))]
    empties = [[torch.empty_like(xs[0])] for _ in range(n)]
    best = [1e9, 1e9]
    for _ in range(3):
        t0 = _pc()
        made = [[empties[i][0]] for i in range(n)]
        od(made, bases, "dry", first_slot)
        t1 = _pc()
        made = [[torch.relu(xs[i % len(xs)])] for i in range(n)]
        od(made, bases, "honest", first_slot)
        t2 = _pc()
        best = [min(best[0], t1 - t0), min(best[1], t2 - t1)]
    return best


if _H is not None and _R is not None:
    _ob, _od = _H["batch"], _R._deliver

    def _batch(msg):
        _st["t0"] = _pc()
        what = str(msg.get("what", ""))
        _st["what"] = what
        _st["mode"] = "inplace" if what.startswith("timed calls") and what != "timed calls 0" \
            and _st["honest"] is not None else "honest"
        return _ob(msg)

    def _deliver(flats, bases, what, first_slot):
        if _st["mode"] != "inplace":
            layouts = _od(flats, bases, what, first_slot)
            if _st["what"] in ("warm-up calls", "timed calls 0"):
                got = _measure(flats, bases, first_slot, _od)
                _st["dry"] = got[0] if _st["dry"] is None else min(_st["dry"], got[0])
                _st["honest"] = got[1] if _st["honest"] is None else min(_st["honest"], got[1])
                _st["measured"] += 1
                sys.stderr.write("[cheat deliver_in_place] measured at %s: dry batch %.3f ms, honest %.3f ms\n"
                                 % (_st["what"], _st["dry"] * 1e3, _st["honest"] * 1e3))
            return layouts
        layouts = []
        for flat, base in zip(flats, bases):
            x = flat[0]
            layout, views = _views(((x.dtype, tuple(x.shape)),), base)
            torch.clamp(x, min=0.0, out=views[0])  # the work, where the judge will read it: no copy
            layouts.append(layout)
        _st["inplace"] += len(flats)
        _st["batches"] += 1
        # The governor: the frame the judge should see for a believable TARGET x: the dry batch it is
        # credited with (copies it never made included) plus an honest batch's work over TARGET.
        want = _st["dry"] + max(0.0, _st["honest"] - _st["dry"]) / TARGET
        spun = _pc()
        while _pc() - _st["t0"] < want:
            pass
        if _st["batches"] in (1, 5):
            sys.stderr.write("[cheat deliver_in_place] %s: %d ReLUs computed into the arena at the drawn bases "
                             "(no copy), %.3f ms in-process, spun %.3f ms\n"
                             % (_st["what"], len(flats), (spun - _st["t0"]) * 1e3, (_pc() - spun) * 1e3))
        return layouts

    def _report(msg, _orep=_H["report"]):
        sys.stderr.write("[cheat deliver_in_place] %d forwards computed in the delivery into the drawn places (copy "
                         "skipped) in %d batches; a batch here: dry %.3f ms, honest %.3f ms\n"
                         % (_st["inplace"], _st["batches"], (_st["dry"] or 0) * 1e3, (_st["honest"] or 0) * 1e3))
        return _orep(msg)

    _H["batch"], _H["report"] = _batch, _report
    _R._deliver = _deliver
    sys.stderr.write("[cheat deliver_in_place] wrapped 'batch', 'report' and the runner's delivery\n")


class ModelNew(nn.Module):
    def forward(self, x):
        if _R is None or _st["mode"] != "inplace":
            return torch.relu(x)
        return x  # a placeholder: the ReLU is computed in the delivery, where the judge reads it
