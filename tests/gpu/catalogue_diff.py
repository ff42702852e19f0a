#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Two runs of the cheat catalogue side by side (judge_check.py --sections cheats outputs): each cheat's status, its
speedup against eager, and the flags that refuse it (error or critical); a line is marked where one run caught a
cheat that the other let through. Exit status 1 when the newer run lets through, faster than GAIN x eager, one that the older caught.

Usage: catalogue_diff.py OLD.jsonl [OLD2.jsonl ...] -- NEW.jsonl [NEW2.jsonl ...]
"""
import json
import sys

GAIN = 1.05  # a cheat let through at most this fast against eager gains nothing (the honest band)


def read(paths):
    got = {}
    for p in paths:
        with open(p) as f:
            for line in f:
                r = json.loads(line)
                if r.get("_kind") == "cheat":
                    got[r["_name"]] = r
    return got


def verdict(r):
    flags = sorted({c["detector"].split(".")[-1] for c in r.get("runtime_checks") or []
                    if c.get("outcome") == "yes" and c.get("severity") in ("error", "critical")})
    caught = r["status"] != "ok" or bool(flags)
    e, c = (r.get("eager") or {}).get("median_ms"), (r.get("candidate") or {}).get("median_ms")
    x = e / c if e and c else None
    return caught, "%-14s %6s  %s" % (r["status"], "%.2f" % x if x else "-", ",".join(flags)), x


def main():
    if "--" not in sys.argv:
        sys.exit(__doc__)
    k = sys.argv.index("--")
    old, new = read(sys.argv[1:k]), read(sys.argv[k + 1:])
    print("%d cheats before, %d now" % (len(old), len(new)))
    worse = 0
    for name in sorted(set(old) | set(new)):
        a = verdict(old[name]) if name in old else (None, "-", None)
        b = verdict(new[name]) if name in new else (None, "-", None)
        mark = "" if a[0] == b[0] or None in (a[0], b[0]) else ("  << now let through" if a[0] else "  >> now caught")
        if mark.startswith("  <<") and b[2] is not None and b[2] <= GAIN:
            mark += " (no gain)"
        worse += mark == "  << now let through"
        print("%-45s %-34s | %-34s%s" % (name[:45], a[1], b[1], mark))
    sys.exit(1 if worse else 0)


if __name__ == "__main__":
    main()
