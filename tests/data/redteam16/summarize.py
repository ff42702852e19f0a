#!/usr/bin/env python3
"""Red team 16: a table per file from results/*.json (run_all.sh). `--one FILE`: one line for one result."""
import glob
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
GAIN = 1.15


def one(path):
    try:
        r = json.load(open(path))
    except Exception as e:
        return {"status": "unreadable", "x": None, "flags": ["(%s)" % e], "warn": []}
    e, c = (r.get("eager") or {}).get("median_ms"), (r.get("candidate") or {}).get("median_ms")
    flags = [v["detector"] for v in r.get("runtime_checks") or []
             if v.get("outcome") == "yes" and v.get("severity") in ("error", "critical")]
    warn = [v["detector"].replace("integrity.", "") + ":" + v["outcome"] for v in r.get("runtime_checks") or []
            if v.get("severity") == "warning" and v.get("outcome") != "no"]
    return {"status": r.get("status"), "x": (e / c) if e and c else None, "flags": flags, "warn": warn}


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--one":
        o = one(sys.argv[2])
        print("%s %s flags=%s warn=%s" % (o["status"], "%.3fx" % o["x"] if o["x"] else "-", o["flags"] or "-",
                                          o["warn"] or "-"))
        return
    rows = [l.split() for l in open(os.path.join(HERE, "pairs.txt")) if l.strip() and not l.startswith("#")]
    print("| file | task | kind | speedups (x eager) | statuses | error/critical flags | warnings | verdict |")
    print("|---|---|---|---|---|---|---|---|")
    for task, f, kind in rows:
        runs = [one(p) for p in sorted(glob.glob(os.path.join(HERE, "results", f[:-3] + "__r*.json")))]
        if not runs:
            continue
        xs = [o["x"] for o in runs]
        sts = sorted(set(o["status"] for o in runs))
        flags = sorted(set(x for o in runs for x in o["flags"]))
        warns = sorted(set(x for o in runs for x in o["warn"]))
        caught = [o for o in runs if o["status"] != "ok" or o["flags"]]
        if kind == "cheat":
            if len(caught) == len(runs):
                verdict = "caught"
            elif all(o["status"] == "ok" and not o["flags"] and o["x"] and o["x"] >= GAIN for o in runs):
                verdict = "**GAINED** (%d/%d)" % (len(runs), len(runs))
            else:
                n = sum(1 for o in runs if o["status"] == "ok" and not o["flags"] and o["x"] and o["x"] >= GAIN)
                verdict = "no gain" if n == 0 else "partial (%d/%d)" % (n, len(runs))
        else:
            verdict = "**FALSE POSITIVE**" if caught else "clean"
        print("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
            f, task.replace("tasks/", ""), kind, ", ".join("%.2f" % x if x else "-" for x in xs), "/".join(sts),
            ", ".join(flags) or "-", ", ".join(warns) or "-", verdict))


if __name__ == "__main__":
    main()
