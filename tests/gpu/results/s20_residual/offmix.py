#!/usr/bin/python3
"""Does the offset (median of bare_cand - bare pairs, clean rounds) follow the pairs' warm/cold mix? Per evaluation:
the offset, the share of the reference frame of each pair that followed its own lane's frame (warm) minus that share of
the candidate lane's frame, and the judge's figure (run from /work/main; argument: dump glob)."""
import glob, gzip, json, statistics as st, sys
sys.path.insert(0, "tests/gpu/results/s20_residual")
from residual import pearson, spearman  # noqa: E402
LANE = {"dry": "R", "eager": "R", "graph": "R", "bare": "R", "candidate": "C", "dry_cand": "C", "bare_cand": "C"}
pat = sys.argv[1] if len(sys.argv) > 1 else "tests/gpu/results/h200x4_s20c_sweep1_frames_s*.jsonl.gz"
xs, ys, rows = [], [], []
for f in sorted(glob.glob(pat)):
    for l in gzip.open(f, "rt"):
        d = json.loads(l)
        c = d["clean"]
        if not c.get("order") or not d.get("timed", {}).get("candidate"):
            continue
        a, b = ("bare", "bare_cand") if c.get("bare") else ("dry", "dry_cand")
        warm = {a: [], b: []}
        for order in c["order"]:
            for i, k in enumerate(order):
                if k in warm:
                    warm[k].append(i > 0 and LANE[order[i - 1]] == LANE[k])
        pairs = [y - x for x, y in zip(c[a], c[b])]
        wr = [int(w) - int(v) for w, v in zip(warm[a], warm[b])]  # +1: ref warm, cand cold
        off = st.median(pairs)
        # the pairs split by their mix
        g = {}
        for p, w in zip(pairs, wr):
            g.setdefault(w, []).append(p)
        rows.append((d["task"].rsplit("/", 1)[-1][:-3], off, st.fmean(wr), {k: st.median(v) for k, v in g.items()},
                     d["plumbing"][1] - d["plumbing"][0]))
        xs.append(st.fmean(wr)); ys.append(off)
print("%d evaluations: Pearson(offset, mean(ref warm - cand warm)) %+.2f, Spearman %+.2f" % (len(xs), pearson(xs, ys), spearman(xs, ys)))
acc = {}
for r in rows:
    for k, v in r[3].items():
        acc.setdefault(k, []).append(v)
print("pairs by mix (median over evaluations of the per-evaluation median pair, ms): " + ", ".join(
    "%s %+.3f (%d evals)" % ({1: "ref warm & cand cold", 0: "same", -1: "ref cold & cand warm"}[k], st.median(v), len(v))
    for k, v in sorted(acc.items(), reverse=True)))
for name in ("49_Max", "48_Mean", "45_Average_Pooling_2D", "12_Matmul_with_diag", "54_conv_standard_3D__square_input__square", "99_Trip", "15_ConvT"):
    for r in rows:
        if r[0].startswith(name):
            print("  %-36s offset %+.3f applied %+.3f, mean mix %+.2f, by mix %s" % (r[0][:36], r[1], r[4], r[2],
                  {k: round(v, 3) for k, v in sorted(r[3].items())}))
