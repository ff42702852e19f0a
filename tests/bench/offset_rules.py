#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Replays the judge's figure on CPU frame dumps (KWB_FRAMES_DUMP; .gz read too) under other rules for the lanes'
offset (judge.lane_offset: the median of the clean rounds' dry-frame pairs, refused unless 75% of the pairs agree
in sign): "now" (the judge's rule), "always" (the median, never refused), "sign05" (refused unless a one-sided sign
test gives p <= 0.05), "now|n20p01" and "now|n20p05" (the judge's rule, or past 20 pairs such a sign test). Small
tasks without a CUDA graph only (a CPU's dumps). Offline, no clock; prints figures, asserts nothing.

  /usr/bin/python3 tests/bench/offset_rules.py DUMP...      e.g. tests/bench/results/cpu_s1*_frames.jsonl.gz
"""
import gzip
import json
import math
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "core", "eval", "worker"))
sys.path.insert(0, HERE)
from kwb_worker.judge import LANE_OFFSET_BOUND, lane_offset, offset_pairs, per_call  # noqa: E402
from replay_frames import judge_figure  # noqa: E402

RULES = ["now", "always", "sign05", "now|n20p01", "now|n20p05"]


def sign_p(k, n):
    """One-sided P(X >= k) for X ~ Binomial(n, 1/2)."""
    return sum(math.comb(n, i) for i in range(k, n + 1)) / 2 ** n


def offset(rule, clean):
    if rule == "now":
        return lane_offset(clean)
    pairs, dry = offset_pairs(clean), clean.get("dry") or []
    if len(pairs) < 3:
        return 0.0
    mid = statistics.median(pairs)
    if mid == 0:
        return 0.0
    k, n = sum(1 for x in pairs if x * mid > 0), len(pairs)
    ok = {"always": True, "sign05": sign_p(k, n) <= 0.05,
          "now|n20p01": lane_offset(clean) != 0.0 or (n >= 20 and sign_p(k, n) <= 0.01),
          "now|n20p05": lane_offset(clean) != 0.0 or (n >= 20 and sign_p(k, n) <= 0.05)}[rule]
    bound = LANE_OFFSET_BOUND * min(dry)
    return max(-bound, min(bound, mid)) if ok else 0.0


def main(paths):
    got = {r: [] for r in RULES}
    refused = dict.fromkeys(RULES, 0)
    for path in paths:
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt") as f:
            for line in f:
                d = json.loads(line)
                timed, clean = d["timed"], d["clean"]
                if not timed.get("eager") or not timed.get("candidate") or not clean.get("eager"):
                    continue
                if clean.get("bare") or clean.get("graph") or timed.get("graph"):
                    continue
                p_ref, K, counted = d["plumbing"][0], d["K"], timed.get("figures") or {}
                eager = per_call(counted.get("eager") or timed["eager"], p_ref, K)
                for r in RULES:
                    off = offset(r, clean)
                    refused[r] += off == 0.0
                    cand = per_call(counted.get("candidate") or timed["candidate"], p_ref + off, K)
                    got[r].append(judge_figure(d, eager, cand, per_call(clean["eager"], p_ref, K), False))
    if not got["now"]:
        sys.exit("no CPU evaluation with eager and candidate frames in those dumps")
    for r in RULES:
        v = got[r]
        off = sorted(abs(x - 1) for x in v)
        print("%-11s n %d  in 0.90-1.10: %d  min %.3f  max %.3f  |x-1| p90 %.3f  offset refused %d" % (
            r, len(v), sum(0.9 <= x <= 1.1 for x in v), min(v), max(v), off[int(0.9 * (len(off) - 1))], refused[r]))


if __name__ == "__main__":
    main(sys.argv[1:])
