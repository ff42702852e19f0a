#!/usr/bin/python3
"""The delivery's pieces (todeliv, deliv, back2) and back, by output size, big tasks (run from /work/main)."""
import json, sys
sys.path.insert(0, "tests/gpu/results/s20_residual")
from order import med, rows, ev  # noqa: E402
from residual import MANUAL_OUT, spearman, pearson  # noqa: E402
import math
shapes = {}
for l in open("tests/gpu/results/s20_residual/shapes.jsonl"):
    s = json.loads(l)
    if s["task"] in MANUAL_OUT:
        s["out_bytes"], s["n_out"] = MANUAL_OUT[s["task"]]
    shapes[s["task"]] = s
nm = lambda d: d["task"].rsplit("/", 1)[-1][:-3]
pm = lambda fr, i: med([p[i] for p in fr if p])
bins = [(0, 1), (1, 256), (256, 1024), (1024, 4096), (4096, 1 << 30)]
print("== big tasks by output size: median over tasks (ms) of back | todeliv deliv back2 (their sum) for timed eager, timed"
      " candidate, clean bare, clean bare_cand; last: L = (cand - eager) - (bare_cand - bare) of the three's sum")
for lo, hi in bins:
    sel = [d for d in ev if d["clean"].get("bare") and lo <= shapes[nm(d)]["out_bytes"] / 2 ** 20 < hi]
    cells, Ls = [], []
    for block, kind in (("timed", "eager"), ("timed", "candidate"), ("clean", "bare"), ("clean", "bare_cand")):
        v = [[pm(d[block]["phases"][kind], i) for i in (2, 3, 4, 5)] for d in sel]
        cells.append("%s %.3f | %.3f %.3f %.3f (%.3f)" % (kind, med([x[0] for x in v]), med([x[1] for x in v]),
                                                          med([x[2] for x in v]), med([x[3] for x in v]),
                                                          med([x[1] + x[2] + x[3] for x in v])))
    for d in sel:
        s = lambda b, k: sum(pm(d[b]["phases"][k], i) for i in (3, 4, 5))
        Ls.append((s("timed", "candidate") - s("timed", "eager")) - (s("clean", "bare_cand") - s("clean", "bare")))
    print("  out %5d-%5s MB %2d: %s  L %+.3f" % (lo, hi if hi < 1 << 29 else "", len(sel), "  ".join(cells), med(Ls)))
print()
print("== back2 of eager (timed) less back2 of bare (clean), against the eager's delivery time (deliv), big tasks")
xs, ys = [], []
for d in ev:
    if not d["clean"].get("bare"):
        continue
    xs.append(pm(d["timed"]["phases"]["eager"], 4))
    ys.append(pm(d["timed"]["phases"]["eager"], 5) - pm(d["clean"]["phases"]["bare"], 5))
print("  Pearson %+.2f Spearman %+.2f; median back2 excess %+.3f ms; for deliv > 2 ms: %+.3f (n=%d), deliv < 0.5 ms: %+.3f (n=%d)" % (
    pearson(xs, ys), spearman(xs, ys), med(ys), med([y for x, y in zip(xs, ys) if x > 2]),
    sum(1 for x in xs if x > 2), med([y for x, y in zip(xs, ys) if x < 0.5]), sum(1 for x in xs if x < 0.5)))
