#!/usr/bin/python3
"""The judge's figure and order2.py's 'all cold' counterfactual by input and output size (big tasks)."""
import json, re, statistics as st
shapes = {json.loads(l)["task"]: json.loads(l) for l in open("tests/gpu/results/s20_residual/shapes.jsonl")}
shapes["43_Max_Pooling_3D"]["out_bytes"] = 16 * 32 * 62 ** 3 * 4
sh = lambda n: [s for t, s in shapes.items() if t.startswith(n)][0]
rows = []
for l in open("tests/gpu/results/s20_residual/order2_s20.txt"):
    m = re.match(r"^(\S+)\s+([Bs])\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+\|", l)
    if m and m.group(2) == "B":
        s = sh(m.group(1))
        rows.append((m.group(1), s["in_bytes"] / 2 ** 20, s.get("out_bytes", 0) / 2 ** 20, float(m.group(3)), float(m.group(5))))
for lo, hi in ((0, 256), (256, 1024), (1024, 4096), (4096, 1e9)):
    sel = [r for r in rows if lo <= r[1] < hi]
    print("in %5d-%5s MB: %2d tasks  judge %.3f  all-cold %.3f" % (lo, "" if hi > 1e8 else int(hi), len(sel),
          st.median(r[3] for r in sel), st.median(r[4] for r in sel)))
for li, lab in (((0, 1024), "in < 1 GB"), ((4096, 1e9), "in >= 4 GB")):
    for lo, hi, olab in ((0, 256, "out < 256 MB"), (256, 4096, "out 256 MB-4 GB"), (4096, 1e9, "out >= 4 GB")):
        sel = [r for r in rows if li[0] <= r[1] < li[1] and lo <= r[2] < hi]
        if sel:
            print("%-10s %-16s %2d tasks: judge %.3f  all-cold %.3f   %s" % (lab, olab, len(sel), st.median(r[3] for r in sel),
                  st.median(r[4] for r in sel), " ".join(r[0].split("_")[0] for r in sel)))
