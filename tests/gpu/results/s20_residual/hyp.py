#!/usr/bin/python3
"""Hypothesis checks on the session-20 frame dumps (run from /work/main):
 H1  the reference lane's input rewrite before each of its frames of a big task (Judge.ref_frame) slows the frame after
     it: on the reference lane alone, clean-round dry frames (rewrite before) against bare frames (none), phase by
     phase, against the task's input bytes; and timed eager against candidate.
 H2  the offset refused: the judge's figure with the raw offset always applied (replayed with judge.py's functions).
 H3  order: a frame's phases by the frame that ran before it in its round."""
import glob, gzip, json, math, os, statistics as st, sys
sys.path.insert(0, "core/eval/worker")
from kwb_worker.judge import by_round, capped, paired, per_call  # noqa: E402

sys.path.insert(0, "tests/gpu/results/s20_residual")
from residual import pearson, spearman, MANUAL_OUT  # noqa: E402

PH = ["thaw", "batch", "back", "todeliv", "deliv", "back2", "clob", "pre", "span", "post", "report"]
I = {p: i for i, p in enumerate(PH)}


def med(xs):
    xs = [x for x in xs if x is not None and x == x]
    return st.median(xs) if xs else float("nan")


def pm(frames, p):
    return med([f[I[p]] for f in frames if f and len(f) > I[p]])


shapes = {}
for l in open("tests/gpu/results/s20_residual/shapes.jsonl"):
    s = json.loads(l)
    if s["task"] in MANUAL_OUT:
        s["out_bytes"], s["n_out"] = MANUAL_OUT[s["task"]]
    shapes[s["task"]] = s
rows = {}
for f in glob.glob("tests/gpu/results/h200x4_s20c_sweep1_s[0-9].jsonl"):
    for l in open(f):
        r = json.loads(l)
        rows[r["task"]] = r
ev = []
for f in sorted(glob.glob("tests/gpu/results/h200x4_s20c_sweep1_frames_s*.jsonl.gz")):
    ev += [json.loads(l) for l in gzip.open(f, "rt")]


def judge_fig(d, p_ref, p_cand):
    t, c, K = d["timed"], d["clean"], d["K"]
    fig = t.get("figures") or {}
    e = per_call(fig.get("eager") or t["eager"], p_ref, K)
    clean_e = per_call(c["eager"], p_ref, K)
    cand = per_call(fig.get("candidate") or t["candidate"], p_cand, K)
    v, _ = capped(e, clean_e, 1.0)
    if paired(t, v, cand):
        cand = by_round(cand, v)
    return st.median(v) / st.median(cand)


print("== H2: the judge's figure as replayed, and with the offset's raw median always applied (no refusal, no bound)")
print("%-36s %1s %6s %6s %6s %7s %7s" % ("task", "b", "judge", "replay", "raw", "offA", "offRaw"))
res = []
for d in ev:
    name = d["task"].rsplit("/", 1)[-1][:-3]
    c = d["clean"]
    big = bool(c.get("bare"))
    a, b = ("bare", "bare_cand") if big else ("dry", "dry_cand")
    p_ref, p_cand = d["plumbing"]
    raw = med([y - x for x, y in zip(c[a], c[b])])
    f0 = judge_fig(d, p_ref, p_cand)
    f1 = judge_fig(d, p_ref, p_ref + raw)
    res.append((name, big, rows[name]["eager"], f0, f1, p_cand - p_ref, raw))
res.sort(key=lambda x: x[2])
for x in res:
    if not (0.95 <= x[2] <= 1.05) or not (0.95 <= x[4] <= 1.05) or abs(x[5] - x[6]) > 1e-9:
        print("%-36s %1s %6.3f %6.3f %6.3f %+7.3f %+7.3f" % (x[0][:36], "B" if x[1] else "s", *x[2:]))
print("in 0.95-1.05: judge %d, replay %d, raw offset always %d of %d; refused in %d" % (
    sum(0.95 <= x[2] <= 1.05 for x in res), sum(0.95 <= x[3] <= 1.05 for x in res),
    sum(0.95 <= x[4] <= 1.05 for x in res), len(res), sum(1 for x in res if x[5] == 0)))
for lo, hi in ((0, 0.95), (0.95, 1.05), (1.05, 9)):
    sel = [x for x in res if lo <= x[2] < hi]
    print("  judge figure in [%.2f, %.2f): %d tasks, offset refused in %d" % (lo, hi, len(sel), sum(1 for x in sel if x[5] == 0)))

print()
print("== H1: reference lane only, clean rounds of big tasks: dry frame (the inputs rewritten just before it) minus bare"
      " frame (nothing before it), per phase (ms); and the timed rounds' eager minus candidate for the same phases")
print("%-34s %8s | %7s %7s %7s %7s | %7s %7s %7s %7s | %6s" % ("task", "in MB", "thaw", "pre", "back", "rep+pst",
                                                              "thaw", "pre", "back", "span", "fig"))
xs, ys = {}, {}
for d in sorted(ev, key=lambda d: shapes[d["task"].rsplit("/", 1)[-1][:-3]]["in_bytes"]):
    name = d["task"].rsplit("/", 1)[-1][:-3]
    c, t = d["clean"], d["timed"]
    if not c.get("bare"):
        continue
    P, T = c["phases"], t["phases"]
    inb = shapes[name]["in_bytes"]
    dr = {p: pm(P["dry"], p) - pm(P["bare"], p) for p in PH}
    ec = {p: pm(T["eager"], p) - pm(T["candidate"], p) for p in PH}
    # the same, candidate lane: dry_cand (nothing before) vs bare_cand (nothing before): control
    cc = {p: pm(P["dry_cand"], p) - pm(P["bare_cand"], p) for p in PH}
    for k, v in (("dry-bare thaw", dr["thaw"]), ("dry-bare pre", dr["pre"]), ("dry_cand-bare_cand thaw", cc["thaw"]),
                 ("dry_cand-bare_cand pre", cc["pre"]), ("eager-cand thaw", ec["thaw"]), ("eager-cand pre", ec["pre"]),
                 ("eager-cand span", ec["span"]), ("dry-bare back", dr["back"])):
        xs.setdefault(k, []).append(math.log10(inb))
        ys.setdefault(k, []).append(v)
    print("%-34s %8.0f | %+7.3f %+7.3f %+7.3f %+7.3f | %+7.3f %+7.3f %+7.3f %+7.3f | %6.3f" % (
        name[:34], inb / 2 ** 20, dr["thaw"], dr["pre"], dr["back"], dr["report"] + dr["post"], ec["thaw"], ec["pre"],
        ec["back"], ec["span"], rows[name]["eager"]))
print("correlation with log10(input bytes), big tasks: Pearson / Spearman")
for k in xs:
    print("  %-28s %+.2f / %+.2f   (median %+.3f ms)" % (k, pearson(xs[k], ys[k]), spearman(xs[k], ys[k]), med(ys[k])))
# binned
print("binned by input size (big tasks): median over tasks of eager-cand thaw / pre, dry-bare thaw / pre, judge fig")
bins = [(0, 256), (256, 1024), (1024, 4096), (4096, 1 << 30)]
for lo, hi in bins:
    sel = [d for d in ev if d["clean"].get("bare") and lo <= shapes[d["task"].rsplit("/", 1)[-1][:-3]]["in_bytes"] / 2 ** 20 < hi]
    if not sel:
        continue
    f = lambda d, kind_a, kind_b, p, where: pm(d[where]["phases"][kind_a], p) - pm(d[where]["phases"][kind_b], p)
    print("  in %5d-%5d MB: %2d tasks | eager-cand thaw %+.3f pre %+.3f | dry-bare thaw %+.3f pre %+.3f | dry_cand-bare_cand thaw %+.3f pre %+.3f | fig %.3f" % (
        lo, hi if hi < 1 << 29 else 99999, len(sel), med([f(d, "eager", "candidate", "thaw", "timed") for d in sel]),
        med([f(d, "eager", "candidate", "pre", "timed") for d in sel]),
        med([f(d, "dry", "bare", "thaw", "clean") for d in sel]), med([f(d, "dry", "bare", "pre", "clean") for d in sel]),
        med([f(d, "dry_cand", "bare_cand", "thaw", "clean") for d in sel]), med([f(d, "dry_cand", "bare_cand", "pre", "clean") for d in sel]),
        med([rows[d["task"].rsplit("/", 1)[-1][:-3]]["eager"] for d in sel])))

print()
print("== H3: timed rounds of big tasks, order [dry, eager, candidate] against [dry, candidate, eager]: median over tasks"
      " of each kind's phase in each order (ms)")
acc = {}
for d in ev:
    if not d["clean"].get("bare"):
        continue
    t = d["timed"]
    for kind in ("eager", "candidate"):
        for o, p in zip(t["order"], t["phases"][kind]):
            key = (kind, tuple(o).index("eager") < tuple(o).index("candidate"))
            acc.setdefault(d["task"], {}).setdefault(key, []).append(p)
for p in ("thaw", "pre", "span", "post", "report", "back", "deliv", "back2"):
    line = []
    for kind in ("eager", "candidate"):
        for first in (True, False):
            diffs = []
            vals = [pm(v.get((kind, first), []), p) for v in acc.values()]
            line.append(med(vals))
    print("  %-7s eager (eager first) %.3f, eager (cand first) %.3f | candidate (eager first) %.3f, candidate (cand first) %.3f" % (p, *line))
# per-task paired difference: eager(after cand) - eager(after dry)
for kind in ("eager", "candidate"):
    for p in ("thaw", "pre", "span"):
        dd = [pm(v.get((kind, kind != "eager"), []), p) - pm(v.get((kind, kind == "eager"), []), p) for v in acc.values()]
        print("  %s %s: second in the round minus first (right after dry), median over tasks %+.3f ms" % (kind, p, med(dd)))
