#!/usr/bin/python3
"""Warm/cold summary of any frame dumps: the figure as replayed (judge.py's functions), the predecessor mix of each
kind, the warm bonus (after the other lane's frame minus after its own lane's), and counterfactual figures.
Usage (from /work/main): warm.py DUMP [DUMP...]"""
import gzip, json, statistics as st, sys
sys.path.insert(0, "core/eval/worker"); sys.path.insert(0, "tests/gpu/results/s20_residual")
from kwb_worker.judge import by_round, capped, paired, per_call  # noqa: E402
from order import frames_by_pred, med  # noqa: E402


def judge_fig(d, p_ref, p_cand):
    t, c, K = d["timed"], d["clean"], d["K"]
    fig = t.get("figures") or {}
    e = per_call(fig.get("eager") or t["eager"], p_ref, K)
    cand = per_call(fig.get("candidate") or t["candidate"], p_cand, K)
    v, _ = capped(e, per_call(c["eager"], p_ref, K), 1.0)
    if paired(t, v, cand):
        cand = by_round(cand, v)
    return st.median(v) / st.median(cand)


ev = []
for f in sys.argv[1:]:
    ev += [json.loads(l) for l in (gzip.open(f, "rt") if f.endswith(".gz") else open(f))]
ev = [d for d in ev if d.get("timed", {}).get("candidate") and d["timed"].get("order") and d["clean"].get("order")]
mix, bonus, out = {}, {}, []
for d in ev:
    big = "big" if d["clean"].get("bare") else "small"
    for block in ("clean", "timed"):
        D = frames_by_pred(d[block])
        for k, v in D.items():
            for c, xs in v.items():
                mix.setdefault((block, big, k), {}).setdefault(c, 0)
                mix[(block, big, k)][c] += len(xs)
            s, o = med([x[0] for x in v.get("S", [])]), med([x[0] for x in v.get("O", [])])
            if s == s and o == o:
                bonus.setdefault((block, big, k), []).append(o - s)
    T, C = frames_by_pred(d["timed"]), frames_by_pred(d["clean"])
    a, b = ("bare", "bare_cand") if big == "big" else ("dry", "dry_cand")
    p_ref, p_cand = d["plumbing"]
    K = d["K"]
    f = judge_fig(d, p_ref, p_cand)
    raw = med([y - x for x, y in zip(d["clean"][a], d["clean"][b])])
    f_raw = judge_fig(d, p_ref, p_ref + raw)
    cold_e = [x[0] for x in T["eager"].get("O", [])]
    oc = med([x[0] for x in C.get(b, {}).get("O", [])]) - med([x[0] for x in C.get(a, {}).get("O", [])])
    allc = (d["timed"].get("every") or d["timed"])["candidate"]
    f_cold = med(per_call(cold_e, p_ref, K)) / med(per_call(allc, p_ref + oc, K)) if len(cold_e) >= 3 and oc == oc else float("nan")
    out.append((d["task"].rsplit("/", 1)[-1][:-3], big, f, f_raw, f_cold, p_cand - p_ref))
print("%d evaluations" % len(ev))
print("predecessor mix (S own lane / O other lane / N first in round) and warm bonus O-S (ms, median over evaluations):")
for key in sorted(mix):
    v = mix[key]
    n = sum(v.values())
    print("  %-5s %-5s %-10s S %3.0f%% O %3.0f%% N %3.0f%%   O-S %+.3f ms (%d evaluations)" % (
        *key, 100 * v.get("S", 0) / n, 100 * v.get("O", 0) / n, 100 * v.get("N", 0) / n, med(bonus.get(key, [])),
        len(bonus.get(key, []))))
for label, i in (("judge (replayed)", 2), ("raw offset always", 3), ("all cold", 4)):
    xs = [x[i] for x in out if x[i] == x[i]]
    print("  %-18s %3d of %d in 0.95-1.05, median %.3f, min %.3f, max %.3f, sd %.3f" % (
        label, sum(0.95 <= v <= 1.05 for v in xs), len(xs), med(xs), min(xs), max(xs), st.pstdev(xs)))
print("  offset refused in %d of %d" % (sum(1 for x in out if x[5] == 0), len(out)))
by = {}
for x in out:
    by.setdefault(x[0], []).append(x)
print("per task (mean over evaluations): judge / raw / cold")
for name, xs in sorted(by.items(), key=lambda kv: st.fmean([x[2] for x in kv[1]])):
    print("  %-40s %2d  %.3f  %.3f  %.3f" % (name[:40], len(xs), st.fmean([x[2] for x in xs]), st.fmean([x[3] for x in xs]),
                                             med([x[4] for x in xs])))
