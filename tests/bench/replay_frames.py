#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Replays the judge's figure, and other statistics of the same frames, on frame dumps (KWB_FRAMES_DUMP=FILE: every
frame of each evaluation, one JSON line an evaluation; .gz read too). For own copies of a task (true ratio 1.0): how
many evaluations each statistic puts in the band, the extremes, the 90th percentile of |x - 1|. Offline, no clock:
the question it answers is which statistic of the frames a judge should report, before a device or CPU hour is spent
on it. Prints figures; asserts nothing.

  /usr/bin/python3 tests/bench/replay_frames.py [--band 0.90 1.10] DUMP...

"judge": the figure as report_times makes it now (the frames counted, each less the plumbing over the calls; eager
capped by baseline_cap with candidate_pace; the candidate by_round; medians). The others use the same counted
per-call figures, uncapped and unpaired: "median", "mean", "trim10"/"trim25" (the mean less that share at each end),
"fast3" (the mean of the fastest third), "q10", "q25"."""
import argparse
import gzip
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "core", "eval", "worker"))
from kwb_worker.judge import by_round, candidate_pace, capped, paired, per_call  # noqa: E402


def quantile(v, p):
    v = sorted(v)
    i = p * (len(v) - 1)
    a = int(i)
    b = min(a + 1, len(v) - 1)
    return v[a] + (v[b] - v[a]) * (i - a)


def trimmed(v, share):
    v = sorted(v)
    k = int(len(v) * share)
    return statistics.mean(v[k:len(v) - k] or v)


def fastest_third(v):
    v = sorted(v)
    return statistics.mean(v[:max(1, len(v) // 3)])


STATS = {"median": statistics.median, "mean": statistics.mean, "trim10": lambda v: trimmed(v, 0.10),
         "trim25": lambda v: trimmed(v, 0.25), "fast3": fastest_third, "q10": lambda v: quantile(v, 0.10),
         "q25": lambda v: quantile(v, 0.25)}


def judge_figure(d, eager, cand, clean_eager, on_gpu):
    timed = d["timed"]
    v, _ = capped(eager, clean_eager, candidate_pace(on_gpu, cand, clean_eager))
    if paired(timed, v, cand):
        cand = by_round(cand, v)
    return statistics.median(v) / statistics.median(cand)


def figures(d):
    """{statistic: eager over candidate} of one evaluation's dump, or None where it has no eager or candidate."""
    timed, clean = d["timed"], d["clean"]
    if not timed.get("eager") or not timed.get("candidate") or not clean.get("eager"):
        return None
    p_ref, p_cand = d["plumbing"]
    K = d["K"]
    counted = timed.get("figures") or {}
    eager = per_call(counted.get("eager") or timed["eager"], p_ref, K)
    cand = per_call(counted.get("candidate") or timed["candidate"], p_cand, K)
    on_gpu = bool(clean.get("graph")) or bool(timed.get("graph"))
    out = {"judge": judge_figure(d, eager, cand, per_call(clean["eager"], p_ref, K), on_gpu)}
    for name, f in STATS.items():
        out[name] = f(eager) / f(cand)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--band", nargs=2, type=float, default=(0.90, 1.10), metavar=("LO", "HI"))
    ap.add_argument("dumps", nargs="+")
    args = ap.parse_args()
    lo, hi = args.band
    every = {}
    for path in args.dumps:
        opener = gzip.open if path.endswith(".gz") else open
        here = {}
        with opener(path, "rt") as f:
            for line in f:
                got = figures(json.loads(line))
                if got is None:
                    continue
                for k, x in got.items():
                    here.setdefault(k, []).append(x)
                    every.setdefault(k, []).append(x)
        if here:
            print("%s: %d evaluations; in %.2f-%.2f: %s" % (os.path.basename(path), len(here["judge"]), lo, hi, ", ".join(
                "%s %d" % (k, sum(lo <= x <= hi for x in v)) for k, v in here.items())))
    if not every:
        sys.exit("no evaluation with eager and candidate frames in those dumps")
    print("all %d evaluations:" % len(every["judge"]))
    for k, v in every.items():
        off = sorted(abs(x - 1.0) for x in v)
        print("  %-7s in %.2f-%.2f: %3d  min %.3f  max %.3f  |x-1| p90 %.3f" % (
            k, lo, hi, sum(lo <= x <= hi for x in v), min(v), max(v), off[int(0.9 * (len(off) - 1))]))


if __name__ == "__main__":
    main()
