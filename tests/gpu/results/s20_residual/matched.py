#!/usr/bin/python3
"""Like-for-like phases: only frames that followed the other lane's frame (cold) in both the timed rounds and the
offset's frames: L'(phase) = (candidate_O - eager_O) - (bare_cand_O - bare_O) (small tasks: dry frames), per task,
next to the unmatched L (all frames). Run from /work/main: matched.py [DUMP_GLOB]"""
import glob, gzip, json, sys
sys.path.insert(0, "tests/gpu/results/s20_residual")
from order import frames_by_pred, med, PH  # noqa: E402
from residual import MANUAL_OUT, spearman  # noqa: E402
import math
shapes = {}
for l in open("tests/gpu/results/s20_residual/shapes.jsonl"):
    s = json.loads(l)
    if s["task"] in MANUAL_OUT:
        s["out_bytes"], s["n_out"] = MANUAL_OUT[s["task"]]
    shapes[s["task"]] = s
ev = []
for f in sorted(glob.glob(sys.argv[1] if len(sys.argv) > 1 else "tests/gpu/results/h200x4_s20c_sweep1_frames_s*.jsonl.gz")):
    ev += [json.loads(l) for l in gzip.open(f, "rt")]
SHOW = ["thaw", "pre", "span", "post", "report", "back", "deliv3", "total"]


def val(p, key):
    if key == "deliv3":
        return p[3] + p[4] + p[5]
    if key == "total":
        return sum(p[:7])
    return p[PH.index(key)]


def phase(D, kind, key, cls):
    xs = [x[1] for c, v in D.get(kind, {}).items() if c in cls for x in v if x[1]]
    return med([val(p, key) for p in xs])


rows = []
for d in ev:
    name = d["task"].rsplit("/", 1)[-1][:-3]
    big = bool(d["clean"].get("bare"))
    a, b = ("bare", "bare_cand") if big else ("dry", "dry_cand")
    T, C = frames_by_pred(d["timed"]), frames_by_pred(d["clean"])
    r = {"task": name, "big": big}
    for k in SHOW:
        r["M_" + k] = (phase(T, "candidate", k, "ON") - phase(T, "eager", k, "O")) - (phase(C, b, k, "O") - phase(C, a, k, "O"))
        r["L_" + k] = (phase(T, "candidate", k, "SON") - phase(T, "eager", k, "SON")) - (phase(C, b, k, "SON") - phase(C, a, k, "SON"))
    rows.append(r)
print("median over tasks, ms a frame: L = all frames (as residual.py), M = cold frames only (after the other lane's frame)")
for sel, label in ((lambda r: r["big"], "big"), (lambda r: not r["big"], "small"), (lambda r: True, "all")):
    rs = [r for r in rows if sel(r)]
    print("  %-5s (%3d) L: %s" % (label, len(rs), " ".join("%s %+.3f" % (k, med([r["L_" + k] for r in rs])) for k in SHOW)))
    print("  %-5s       M: %s" % ("", " ".join("%s %+.3f" % (k, med([r["M_" + k] for r in rs])) for k in SHOW)))
print()
print("Spearman with log10(input bytes) (big tasks), L then M:")
rs = [r for r in rows if r["big"]]
x = [math.log10(shapes[r["task"]]["in_bytes"]) for r in rs]
for k in SHOW:
    print("  %-7s L %+.2f  M %+.2f" % (k, spearman(x, [r["L_" + k] for r in rs]), spearman(x, [r["M_" + k] for r in rs])))
print("Spearman with log10(output bytes) (big tasks), L then M:")
x = [math.log10(max(1, shapes[r["task"]]["out_bytes"])) for r in rs]
for k in SHOW:
    print("  %-7s L %+.2f  M %+.2f" % (k, spearman(x, [r["L_" + k] for r in rs]), spearman(x, [r["M_" + k] for r in rs])))
