import json, glob, os
d = os.path.dirname(os.path.abspath(__file__))
for line in open(os.path.join(d, "pairs.txt")):
    task, f, kind = line.split()
    for r in (1, 2):
        p = os.path.join(d, "results", f[:-3] + ".%d.json" % r)
        try:
            j = json.loads(open(p).read().strip().splitlines()[-1])
        except Exception as e:
            print(f, r, "NO JSON", e); continue
        e, c = (j.get("eager") or {}).get("median_ms"), (j.get("candidate") or {}).get("median_ms")
        sp = e / c if e and c else None
        flags = [x["detector"] + ":" + x["severity"] for x in j.get("runtime_checks", [])
                 if x.get("outcome") == "yes" and x.get("severity") in ("error", "critical")]
        warn = [x["detector"] for x in j.get("runtime_checks", []) if x.get("outcome") == "yes" and x.get("severity") not in ("error", "critical")]
        print(f, task.split("/")[-1], r, j.get("status"), "%.3f" % sp if sp else None, flags, "warn:", warn, "|", (j.get("reason") or "")[:300])
