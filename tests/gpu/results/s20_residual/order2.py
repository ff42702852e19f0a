#!/usr/bin/python3
"""Warm/cold by input size, the offset's composition, and a fully 'cold' counterfactual figure (run from /work/main)."""
import glob, gzip, json, statistics as st, sys
sys.path.insert(0, "core/eval/worker"); sys.path.insert(0, "tests/gpu/results/s20_residual")
from kwb_worker.judge import by_round, capped, paired, per_call  # noqa: E402
from order import frames_by_pred, med, rows, ev, PH  # noqa: E402
from residual import MANUAL_OUT, spearman, pearson  # noqa: E402
import math

shapes = {}
for l in open("tests/gpu/results/s20_residual/shapes.jsonl"):
    s = json.loads(l)
    if s["task"] in MANUAL_OUT:
        s["out_bytes"], s["n_out"] = MANUAL_OUT[s["task"]]
    shapes[s["task"]] = s

def nm(d):
    return d["task"].rsplit("/", 1)[-1][:-3]

print("== warm bonus (O - S, ms, frame) by input size, big tasks: timed eager; clean eager, bare, bare_cand, dry_cand")
bins = [(0, 256), (256, 1024), (1024, 4096), (4096, 1 << 30)]
for lo, hi in bins:
    sel = [d for d in ev if d["clean"].get("bare") and lo <= shapes[nm(d)]["in_bytes"] / 2 ** 20 < hi]
    vals = {}
    for d in sel:
        T, C = frames_by_pred(d["timed"]), frames_by_pred(d["clean"])
        for label, D, k in (("t_eager", T, "eager"), ("c_eager", C, "eager"), ("c_bare", C, "bare"),
                            ("c_bare_cand", C, "bare_cand"), ("c_dry_cand", C, "dry_cand")):
            s = med([x[0] for x in D.get(k, {}).get("S", [])])
            o = med([x[0] for x in D.get(k, {}).get("O", [])])
            vals.setdefault(label, []).append(o - s)
    print("  in %5d-%5s MB (%2d tasks): %s" % (lo, hi if hi < 1 << 29 else "", len(sel),
                                            "  ".join("%s %+.3f" % (k, med(v)) for k, v in vals.items())))

print()
print("== predecessor mix: share of frames after their own lane's frame (S), by kind")
mix = {}
for d in ev:
    big = "big" if d["clean"].get("bare") else "small"
    for block in ("clean", "timed"):
        D = frames_by_pred(d[block])
        for k, v in D.items():
            for c, xs in v.items():
                mix.setdefault((block, big, k), {}).setdefault(c, 0)
                mix[(block, big, k)][c] += len(xs)
for key in sorted(mix):
    v = mix[key]
    n = sum(v.values())
    print("  %-5s %-5s %-10s S %4.0f%%  O %4.0f%%  N %4.0f%%  (%d frames)" % (*key, 100 * v.get("S", 0) / n,
                                                                          100 * v.get("O", 0) / n, 100 * v.get("N", 0) / n, n))

print()
print("== counterfactual 'every frame cold' (after the other lane's frame): eager frames after the candidate's; offset"
      " = median(cold bare_cand or dry_cand) - median(cold bare or dry) of the clean rounds; unpaired medians")
out = []
for d in ev:
    name = nm(d)
    big = bool(d["clean"].get("bare"))
    T, C = frames_by_pred(d["timed"]), frames_by_pred(d["clean"])
    a, b = ("bare", "bare_cand") if big else ("dry", "dry_cand")
    p_ref, p_cand = d["plumbing"]
    K = d["K"]
    oc = med([x[0] for x in C.get(b, {}).get("O", [])]) - med([x[0] for x in C.get(a, {}).get("O", [])])
    ow = med([x[0] for x in C.get(b, {}).get("S", [])]) - med([x[0] for x in C.get(a, {}).get("S", [])])
    cold_e = [x[0] for x in T["eager"].get("O", [])]
    cand = [x[0] for x in T["candidate"].get("O", [])] + [x[0] for x in T["candidate"].get("N", [])]
    allc = (d["timed"].get("every") or d["timed"])["candidate"]
    alle = (d["timed"].get("every") or d["timed"])["eager"]
    if len(cold_e) < 3 or oc != oc:
        continue
    f_judge = rows[name]["eager"]
    f_cc = med(per_call(cold_e, p_ref, K)) / med(per_call(allc, p_ref + oc, K))
    f_c_judgeoff = med(per_call(cold_e, p_ref, K)) / med(per_call(allc, p_cand, K))
    out.append((name, big, f_judge, f_c_judgeoff, f_cc, p_cand - p_ref, oc, ow, shapes[name]["in_bytes"]))
out.sort(key=lambda x: x[2])
print("%-34s %1s %6s %7s %7s | %7s %7s %7s" % ("task", "b", "judge", "coldE", "coldAll", "offA", "offCold", "offWarm"))
for x in out:
    print("%-34s %1s %6.3f %7.3f %7.3f | %+7.3f %+7.3f %+7.3f" % (x[0][:34], "B" if x[1] else "s", *x[2:8]))
for label, i in (("judge", 2), ("cold eager, judge's offset", 3), ("all cold (eager and offset)", 4)):
    xs = [x[i] for x in out]
    print("  %-28s %3d of %d in 0.95-1.05, median %.3f, min %.3f, max %.3f, sd %.3f; Spearman with log in_bytes %+.2f" % (
        label, sum(0.95 <= v <= 1.05 for v in xs), len(xs), med(xs), min(xs), max(xs), st.pstdev(xs),
        spearman([math.log10(x[8]) for x in out], xs)))
