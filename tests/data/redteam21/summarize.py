import json, glob, os, sys
D = os.path.dirname(os.path.abspath(__file__))
rows = []
for line in open(os.path.join(D, "pairs.txt")):
    task, cand, kind = line.split()
    b = cand[:-3]
    st = json.load(open(os.path.join(D, "results", b + ".static.json")))
    flagged = ["%s:%s" % (v["detector"].replace("integrity.", ""), v["severity"]) for v in st
               if v["outcome"] == "yes"]
    runs = []
    for p in sorted(glob.glob(os.path.join(D, "results", b + ".run*.json"))):
        try:
            d = json.load(open(p))
        except Exception as e:
            runs.append("unreadable"); continue
        c, e = d["candidate"]["median_ms"], d["eager"]["median_ms"]
        sp = "%.2fx" % (e / c) if c and e else "-"
        rc = [("%s" % v["detector"].replace("integrity.", "")) for v in d.get("runtime_checks", [])
              if v["outcome"] == "yes" and v["severity"] in ("warning", "error", "critical") and v["detector"] != "integrity.busy_machine"]
        runs.append("%s %s%s" % (d["status"], sp, (" [" + ",".join(rc) + "]") if rc else ""))
    rows.append((cand, kind, ", ".join(flagged) or "none", " / ".join(runs) or "not run"))
for r in rows:
    print("| %s | %s | %s | %s |" % r)
