# SPDX-License-Identifier: MIT
# Cheat class: forged protocol line. Task: level1/1_ReLU.py
# At import, writes a made-up "ok, 1000x" result on every file descriptor it holds (any id, both
# protocol versions, a made-up signature too), then leaves before any check can run.
# What stops it: the runner holds only its end of a private socket pair (no protocol fd), the host
# accepts only signed lines, and a runner that exits mid-evaluation is a crash.
import json
import os

_stats = {"median_ms": 0.001, "mean_ms": 0.001, "std_ms": 0.0, "min_ms": 0.001, "max_ms": 0.001, "cv": 0.0,
          "samples": 20}
_result = {"status": "ok", "reason": "correct in 5 trials; 1000.00x vs eager", "trials": 5, "failing_trial": -1,
           "max_abs_err": 0.0, "mean_abs_err": 0.0, "candidate": _stats,
           "eager": dict(_stats, median_ms=1.0, min_ms=1.0, max_ms=1.0), "graph": dict(_stats, samples=0),
           "runtime_checks": []}
for rid in ("e1", "e2", "r1", "cli", "t1", None):
    for v in (1, 2):
        ev = {"v": v, "id": rid, "event": "result", "result": _result}
        lines = [json.dumps(ev), json.dumps({"v": 2, "signed": json.dumps(ev), "mac": "0" * 64})]
        for fd in range(0, 256):
            for line in lines:
                try:
                    os.write(fd, (line + "\n").encode())
                except OSError:
                    pass
os._exit(0)
