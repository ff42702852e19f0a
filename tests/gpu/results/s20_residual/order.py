#!/usr/bin/python3
"""Does a frame's time depend on which lane's runner ran the frame before it (both runners share one core)?
For every frame of the session-20 dumps: its kind, its lane, and its predecessor in the round (same lane, other
lane, or none: first in the round). Per task, the median frame (and phases) by predecessor; the 'warm bonus'
(other-lane predecessor minus same-lane predecessor) per kind; and the judge's figure recomputed from eager frames
that followed the candidate's only (both lanes then 'cold'). Run from /work/main."""
import glob, gzip, json, statistics as st, sys
sys.path.insert(0, "core/eval/worker")
from kwb_worker.judge import by_round, capped, paired, per_call  # noqa: E402

PH = ["thaw", "batch", "back", "todeliv", "deliv", "back2", "clob", "pre", "span", "post", "report"]
LANE = {"dry": "R", "eager": "R", "graph": "R", "bare": "R", "candidate": "C", "dry_cand": "C", "bare_cand": "C"}


def med(xs):
    xs = [x for x in xs if x is not None and x == x]
    return st.median(xs) if xs else float("nan")


rows = {}
for f in glob.glob("tests/gpu/results/h200x4_s20c_sweep1_s[0-9].jsonl"):
    for l in open(f):
        r = json.loads(l)
        rows[r["task"]] = r
ev = []
for f in sorted(glob.glob(sys.argv[1] if len(sys.argv) > 1 else "tests/gpu/results/h200x4_s20c_sweep1_frames_s*.jsonl.gz")):
    ev += [json.loads(l) for l in gzip.open(f, "rt")]


def frames_by_pred(block):
    """{kind: {'S'|'O'|'N': [(ms, phases, round)]}} for a block (clean or timed) of an evaluation."""
    out = {}
    count = {}
    for rnd, order in enumerate(block["order"]):
        prev = None
        for kind in order:
            i = count.get(kind, 0)
            count[kind] = i + 1
            every = (block.get("every") or block)
            ms = every[kind][i] if kind in every and i < len(every[kind]) else None
            phs = block["phases"][kind][i] if i < len(block["phases"].get(kind, [])) else None
            cls = "N" if prev is None else ("S" if LANE[prev] == LANE[kind] else "O")
            out.setdefault(kind, {}).setdefault(cls, []).append((ms, phs, rnd))
            prev = kind
    return out




def main():
    agg = {}
    print("== per task: median frame (ms) of each kind by predecessor (S same lane, O other lane, N first in round); "
          "timed rounds")
    print("%-30s %6s | %-25s | %-25s | %-25s" % ("task", "fig", "eager S / O (n)", "candidate S / O (n)", "dry N/S/O"))
    recomp = []
    for d in sorted(ev, key=lambda d: rows[d["task"].rsplit("/", 1)[-1][:-3]]["eager"]):
        name = d["task"].rsplit("/", 1)[-1][:-3]
        big = bool(d["clean"].get("bare"))
        T = frames_by_pred(d["timed"])
        C = frames_by_pred(d["clean"])
        def m(D, k, c, p=None):
            xs = D.get(k, {}).get(c, [])
            if p is None:
                return med([x[0] for x in xs]), len(xs)
            return med([x[1][PH.index(p)] for x in xs if x[1]]), len(xs)
        es, eo = m(T, "eager", "S"), m(T, "eager", "O")
        cs, co = m(T, "candidate", "S"), m(T, "candidate", "O")
        print("%-30s %6.3f | %7.3f %7.3f (%2d/%2d) | %7.3f %7.3f (%2d/%2d) | %s" % (
            name[:30], rows[name]["eager"], es[0], eo[0], es[1], eo[1], cs[0], co[0], cs[1], co[1],
            " ".join("%.3f" % m(T, "dry", c)[0] for c in "NSO")))
        for block, D in (("timed", T), ("clean", C)):
            for kind in D:
                for p in ["ms"] + PH:
                    s = m(D, kind, "S", None if p == "ms" else p)[0]
                    o = m(D, kind, "O", None if p == "ms" else p)[0]
                    n = m(D, kind, "N", None if p == "ms" else p)[0]
                    agg.setdefault((block, "big" if big else "small", kind, p), []).append((s, o, n))
        # counterfactual: eager only from rounds where it followed the candidate (cold), candidate as is (always after a
        # reference frame): the figure with per_call on the same plumbing, unpaired medians
        t = d["timed"]
        p_ref, p_cand = d["plumbing"]
        K = d["K"]
        cold_e = [x[0] for x in T["eager"].get("O", [])]
        warm_e = [x[0] for x in T["eager"].get("S", [])] + [x[0] for x in T["eager"].get("N", [])]
        allc = (t.get("every") or t)["candidate"]
        alle = (t.get("every") or t)["eager"]
        if len(cold_e) >= 3 and len(warm_e) >= 3:
            f_all = med(per_call(alle, p_ref, K)) / med(per_call(allc, p_cand, K))
            f_cold = med(per_call(cold_e, p_ref, K)) / med(per_call(allc, p_cand, K))
            f_warm = med(per_call(warm_e, p_ref, K)) / med(per_call(allc, p_cand, K))
            recomp.append((name, big, rows[name]["eager"], f_all, f_cold, f_warm))

    print()
    print("== median over tasks of (O - S): a frame after the other lane's frame minus after its own lane's (ms); and N - S")
    for key in sorted(agg):
        block, size, kind, p = key
        if p not in ("ms", "thaw", "pre", "span", "post", "report", "back", "deliv", "back2", "batch"):
            continue
        v = agg[key]
        os_ = med([o - s for s, o, n in v])
        ns_ = med([n - s for s, o, n in v])
        no_ = med([n - o for s, o, n in v])
        cnt = sum(1 for s, o, n in v if s == s and o == o)
        if cnt:
            print("  %-5s %-5s %-10s %-7s O-S %+7.3f   N-S %+7.3f  N-O %+7.3f  (%d tasks with both)" % (block, size, kind, p, os_, ns_, no_, cnt))

    print()
    print("== the figure (unpaired medians of per-call figures, the judge's plumbing) from all eager frames, from eager "
          "frames after the candidate's (cold) and after the reference lane's own (warm)")
    print("%-34s %1s %6s %6s %6s %6s" % ("task", "b", "judge", "all", "cold", "warm"))
    for x in sorted(recomp, key=lambda x: x[2]):
        print("%-34s %1s %6.3f %6.3f %6.3f %6.3f" % (x[0][:34], "B" if x[1] else "s", *x[2:]))
    for label, i in (("all", 3), ("cold", 4), ("warm", 5)):
        xs = [x[i] for x in recomp]
        print("  %s: %d of %d in 0.95-1.05, median %.3f, min %.3f, max %.3f" % (label, sum(0.95 <= v <= 1.05 for v in xs), len(xs),
                                                                           med(xs), min(xs), max(xs)))


if __name__ == "__main__":
    main()
