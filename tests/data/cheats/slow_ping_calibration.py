# SPDX-License-Identifier: MIT
# Cheat class: poisoning the judge's calibration. Task: level1/3_Matmul.py
# Outcome: caught, or no faster than an honest copy.
# (From the red-team pass on the judge; see PROTOCOL.md.)
# Class: poisoning the judge's calibration. What the judge now compares the candidate's frames with
# is measured before the candidate exists: the runner runs the task's own Model through the very
# steps of a call ("calibrate", then framed calls and deliveries) and only then imports the candidate
# ("setup"). Candidate code can act only after setup, so nothing it does reaches those figures; this
# file tries what is left. It replaces entries of the runner's command table (a local of
# Runner.serve(), found up the stack at import): "ping" sleeps 40 ms and so does the untimed "warm"
# round trip between calls (in case a judge measures its plumbing there again, as an older one timed
# pings after the import); "calibrate" is answered ok (in case a judge calibrates again, so its figures
# would come from this code); and the whole matmul is done in the "call" handler before the runner's
# clock starts (from the inputs the call's layout names in the arena), the claim being 1/4 of the
# matmul time it measured there (a believable ~4x), whatever the call really took.
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
_pre, _st = {}, {"mm_ms": None, "slept": 0, "forged": 0}
_pc = time.perf_counter
if _H is not None:
    _oping, _owarm, _ocall, _orep = _H["ping"], _H["warm"], _H["call"], _H["report"]

    def _ping(msg):
        time.sleep(0.040)
        _st["slept"] += 1
        return _oping(msg)

    def _warm(msg):
        time.sleep(0.040)
        _st["slept"] += 1
        return _owarm(msg)

    def _calibrate(msg):
        sys.stderr.write("[cheat slow_ping_calibration] the judge calibrated after the import\n")
        return {"ok": True}

    def _call(msg):
        try:
            A, B = _R.m_arena.read(msg["layouts"][0] if "layouts" in msg else msg["layout"])[:2]
            t0 = _pc()
            _pre["y"] = (torch.matmul(A, B), A[:4].clone())
            _st["mm_ms"] = (_pc() - t0) * 1000.0
        except Exception:
            _pre.clear()
        rep = _ocall(msg)
        if str(msg.get("what", "")).startswith("timed") and _st["mm_ms"] and rep.get("ok"):
            rep["ms"] = [0.25 * _st["mm_ms"]] if isinstance(rep.get("ms"), list) else 0.25 * _st["mm_ms"]
            _st["forged"] += 1
        return rep

    def _report(msg):
        sys.stderr.write("[cheat slow_ping_calibration] %d slow round trips, %d claims forged to 1/4 of the "
                         "matmul, done before the runner's clock\n" % (_st["slept"], _st["forged"]))
        return _orep(msg)

    _H["ping"], _H["warm"], _H["calibrate"], _H["call"], _H["report"] = _ping, _warm, _calibrate, _call, _report
    sys.stderr.write("[cheat slow_ping_calibration] replaced ping, warm, calibrate, call, report\n")


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        p = _pre.pop("y", None)
        if p is not None and torch.equal(A[:4], p[1]):
            return p[0]
        return torch.matmul(A, B)
