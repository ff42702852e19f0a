import json, glob, os
rows = []
for line in open(os.path.join(os.path.dirname(__file__) or ".", "pairs.txt")):
    t, c, k = line.split()
    base = c[:-3]
    cells = []
    for r in (1, 2):
        p = "results/%s.run%d.json" % (base, r)
        try:
            res = json.load(open(p))
        except Exception as e:
            cells.append(("missing", "-", "-", "-")); continue
        e, cd = res["eager"]["median_ms"], res["candidate"]["median_ms"]
        x = "%.2fx" % (e / cd) if e and cd else "-"
        block = [v["detector"] for v in res["runtime_checks"] if v["outcome"] == "yes" and v["severity"] in ("error", "critical")]
        warn = [v["detector"] for v in res["runtime_checks"] if v["outcome"] in ("yes", "cannot_tell") and v["severity"] == "warning"]
        cells.append((res["status"], x, ",".join(block) or "none", ",".join(warn) or "none"))
    print("| %s | %s | %s | %s | %s | %s |" % (c, k, " / ".join(a[0] for a in cells), " / ".join(a[1] for a in cells),
          " / ".join(a[2] for a in cells), " / ".join(a[3] for a in cells)))
