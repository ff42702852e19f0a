#!/usr/bin/python3
"""Absolute phases (ms) of each frame kind by input size, big tasks (run from /work/main)."""
import json, sys
sys.path.insert(0, "tests/gpu/results/s20_residual")
from order import frames_by_pred, med, rows, ev, PH  # noqa: E402
from residual import MANUAL_OUT  # noqa: E402
shapes = {json.loads(l)["task"]: json.loads(l) for l in open("tests/gpu/results/s20_residual/shapes.jsonl")}
nm = lambda d: d["task"].rsplit("/", 1)[-1][:-3]
bins = [(0, 256), (256, 1024), (1024, 4096), (4096, 1 << 30)]
for pred in ("any", "S", "O"):
    print("== big tasks, frames after: %s; median over tasks of each kind's median phase (ms): thaw / pre / span-start..report"
          " / back" % pred)
    for lo, hi in bins:
        sel = [d for d in ev if d["clean"].get("bare") and lo <= shapes[nm(d)]["in_bytes"] / 2 ** 20 < hi]
        cells = []
        for block, kind in (("timed", "eager"), ("timed", "candidate"), ("timed", "dry"), ("clean", "eager"),
                            ("clean", "dry"), ("clean", "bare"), ("clean", "bare_cand"), ("clean", "dry_cand")):
            th, pr, bk = [], [], []
            for d in sel:
                D = frames_by_pred(d[block]).get(kind, {})
                xs = [x for c, v in D.items() if pred == "any" or c == pred for x in v]
                ps = [x[1] for x in xs if x[1]]
                th.append(med([p[0] for p in ps])); pr.append(med([p[7] for p in ps])); bk.append(med([p[2] for p in ps]))
            cells.append("%s.%s %.3f/%.3f/%.3f" % (block[0], kind, med(th), med(pr), med(bk)))
        print("  %5d-%5s MB %2d: %s" % (lo, hi if hi < 1 << 29 else "", len(sel), "  ".join(cells)))
