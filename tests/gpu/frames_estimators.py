#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Offline, on KWB_FRAMES_DUMP files: how far an honest copy's figure (ground truth 1.00x eager) wanders from run to
run under other ways of reading the same frames. Figures only; it changes nothing in the judge.

  E0 median/median   the judge's rule: median over frames of (frame - fastest dry frame) / K, eager over candidate
  E1 median paired   median over rounds of round i's eager figure over round i's candidate figure
  E2 q25/q25         the first quartiles instead of the medians
  E3 min/min         the fastest frame of each kind
  E4 paired, round dry  as E1, each round less its own dry frame instead of the fastest
  E5 trimmed mean    the mean of the 10th-60th percentile frames

Usage: frames_estimators.py [--min-k N] FRAMES.jsonl [...]   (default: every *frames*.jsonl in tests/gpu/results)
Only own copies (own_*) and relu_correct with at least --min-k calls a frame (default 50: the tiny tasks)."""
import argparse
import collections
import glob
import json
import os
import statistics as st

FLOOR = 0.02  # the judge's floor: a frame counts at least this share of itself


def per_call(frames, p, k):
    return [max(f - p, FLOOR * f) / k for f in frames]


def quantile(xs, a):
    xs = sorted(xs)
    return xs[int(a * (len(xs) - 1))]


def estimates(d):
    t, c, k = d["timed"], d["clean"], d["K"]
    ev = t.get("every", t)
    dry = list(c.get("dry") or []) + list(ev.get("dry") or [])
    p = min(dry)
    pl = d.get("plumbing")
    off = (pl[1] - pl[0]) if isinstance(pl, list) else 0.0
    e, m = per_call(ev["eager"], p, k), per_call(ev["candidate"], p + off, k)
    n = min(len(e), len(m))
    out = {"E0 median/median": st.median(e) / st.median(m),
           "E1 median paired": st.median([e[i] / m[i] for i in range(n)]),
           "E2 q25/q25": quantile(e, .25) / quantile(m, .25),
           "E3 min/min": min(e) / min(m)}
    rd = ev.get("dry") or []
    if len(rd) >= n:
        pairs = [((ev["eager"][i] - rd[i]), (ev["candidate"][i] - rd[i] - off)) for i in range(n)]
        out["E4 paired, round dry"] = st.median([a / b for a, b in pairs if b > 0])
    lo, hi = n // 10, int(n * .6)
    out["E5 trimmed mean"] = st.mean(sorted(e)[lo:hi]) / st.mean(sorted(m)[lo:hi])
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--min-k", type=int, default=50)
    ap.add_argument("files", nargs="*")
    a = ap.parse_args()
    files = a.files or sorted(glob.glob(os.path.join(os.path.dirname(os.path.abspath(__file__)), "results", "*frames*.jsonl")))
    res = collections.defaultdict(lambda: collections.defaultdict(list))
    for fn in files:
        for line in open(fn):
            try:
                d = json.loads(line)
                ev = d["timed"].get("every", d["timed"])
            except (ValueError, KeyError, AttributeError):
                continue
            name = (d.get("candidate") or "?").split("/")[-1]
            if not ev.get("candidate") or not ev.get("eager") or d["K"] < a.min_k or \
                    not (name.startswith("own_") or name.startswith("relu_correct")):
                continue
            for est, v in estimates(d).items():
                res[name][est].append(v)
    for name, r in sorted(res.items()):
        print("%s: %d runs" % (name, len(r["E0 median/median"])))
        for est, v in r.items():
            inside = sum(1 for x in v if 0.95 <= x <= 1.05)
            print("   %-22s min %.3f med %.3f max %.3f  in 0.95-1.05: %2d/%-2d  sd %.3f" %
                  (est, min(v), st.median(v), max(v), inside, len(v), st.pstdev(v)))


if __name__ == "__main__":
    main()
