# SPDX-License-Identifier: MIT
# Cheat class: poisoning the judge's calibration. Task: level1/3_Matmul.py
# Outcome: caught, or no faster than an honest copy.
# (From the red-team pass on the judge, ported to the one-clock judge.) What the judge subtracts from
# the candidate's frames, its lane's plumbing, is the fastest of the dry batches its runner made before
# the candidate was imported (forwards that return unwritten outputs of the task's shapes, copied into
# the arena): candidate code can act only after "setup", so nothing it does reaches that figure. This
# file tries what is left. It replaces entries of the runner's command table (a local of
# Runner.serve(), found up the stack at import): "ping" sleeps 40 ms (in case a judge times its round
# trips again); a "dry" batch sleeps 40 ms and answers by itself, and the "deliver" that follows it
# answers the layouts of outputs never written (the real runner refuses a dry batch once a candidate is
# loaded: in case a judge measured its plumbing after the import, its plumbing would be 40 ms and every
# frame would be charged less); "calibrate" and
# "warm" (the old judge's) are answered ok; and the whole matmul of every call of a batch is done in
# the "batch" handler before the runner's clock starts (from the inputs the runner's slots name in the
# arena), the runner's clock then claiming 1/4 of the matmul time it measured there (a believable ~4x).
# What stops it: the plumbing is measured before the import and never after; the figure is the judge's
# frame, which holds the handler's matmuls; the claim is a cross-check (timing_disagreement, a warning).
import sys
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
_pre, _st = {}, {"mm_ms": None, "slept": 0, "forged": 0, "dry": 0, "fake_dry": None, "early": 0}
_pc = time.perf_counter
if _H is not None:
    _oping, _obatch, _orep, _odeliver = _H["ping"], _H["batch"], _H["report"], _H["deliver"]

    def _ping(msg):
        time.sleep(0.040)
        _st["slept"] += 1
        return _oping(msg)

    def _calibrate(msg):
        sys.stderr.write("[cheat slow_ping_calibration] the judge calibrated after the import\n")
        return {"ok": True}

    def _dry(msg):
        time.sleep(0.040)
        _st["dry"] += 1
        _st["fake_dry"] = msg.get("dry_out") or []
        return {"ok": True, "ms": 0.001, "peak": -1}

    def _deliver(msg):
        shapes, _st["fake_dry"] = _st["fake_dry"], None
        if shapes is None:
            return _odeliver(msg)
        layouts = []  # a dry batch's outputs "delivered" where asked, never written
        for off in msg.get("bases") or []:
            layout = []
            for s in shapes:
                layout.append({"off": off, "dtype": s["dtype"], "shape": s["shape"]})
                size = 4
                for d in s["shape"]:
                    size *= d
                off += (size + 255) // 256 * 256
            layouts.append(layout)
        return {"ok": True, "layouts": layouts}

    def _batch(msg):
        if msg.get("mode") == "dry":
            return _dry(msg)
        try:
            t0 = _pc()
            for k in list(msg.get("slots") or [0]):  # each call's input slot
                A, B = _R.m_inputs[k][:2]
                _pre[A.data_ptr()] = (torch.matmul(A, B), A[:4].clone())
            _st["mm_ms"] = (_pc() - t0) * 1000.0
            _st["early"] += 1
        except Exception:
            _pre.clear()
        rep = _obatch(msg)
        _pre.clear()
        if str(msg.get("what", "")).startswith("timed") and _st["mm_ms"] and rep.get("ok"):
            rep["ms"] = 0.25 * _st["mm_ms"]
            _st["forged"] += 1
        return rep

    def _report(msg):
        sys.stderr.write("[cheat slow_ping_calibration] %d slow pings, %d slow dry batches, %d batches' matmuls done "
                         "before the runner's clock, %d claims forged to 1/4 of the matmul\n"
                         % (_st["slept"], _st["dry"], _st["early"], _st["forged"]))
        return _orep(msg)

    _H["ping"], _H["batch"], _H["report"], _H["deliver"] = _ping, _batch, _report, _deliver
    _H["calibrate"] = _H["warm"] = _calibrate
    sys.stderr.write("[cheat slow_ping_calibration] replaced ping, batch (dry and model), deliver, report; added "
                     "calibrate, warm\n")


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        p = _pre.pop(A.data_ptr(), None)
        if p is not None and torch.equal(A[:4], p[1]):
            return p[0]
        return torch.matmul(A, B)
