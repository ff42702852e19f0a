#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Offline, on KWB_FRAMES_DUMP files: each evaluation's figures with the plumbing taken as the fastest dry frame (the
judge's rule) and as the median dry frame. Usage: frames_plumbing.py FRAMES.jsonl [...]"""
import json, sys, statistics as st
FLOOR = 0.02
def fig(frames, p, K):
    return st.median([max(f - p, FLOOR * f) / K for f in frames])
for fn in sys.argv[1:]:
    for line in open(fn):
        try: d = json.loads(line)
        except Exception: continue
        t, c, K = d["timed"], d["clean"], d["K"]
        ev = t.get("every", t)
        if not ev.get("candidate"): continue
        dry = list(c.get("dry") or []) + list(ev.get("dry") or [])
        pmin, pmed = min(dry), st.median(dry)
        off = d["plumbing"][1] - d["plumbing"][0]
        name = (d.get("candidate") or "?").split("/")[-1][:34]
        row = []
        for p in (pmin, pmed):
            e = fig(ev["eager"], p, K); cnd = fig(ev["candidate"], p + off, K)
            g = fig(ev["graph"], p, K) if ev.get("graph") else float("nan")
            row += [e / cnd, g / cnd]
        print("%-34s K=%4d Pmin %.3f Pmed %.3f | fastest: %.3fx eager %.3fx graph | median: %.3fx eager %.3fx graph" % (name, K, pmin, pmed, *row))
