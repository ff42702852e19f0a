#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Totals of a full KernelBench sweep over its shards' state files (kernelbench_sweep.py --state), and, given a second
sweep's files, how the two agree task by task (the issue's bar: every task in 0.95-1.05 against eager in both, no task
clean in one and flagged in the other). Prints figures; asserts nothing. Runs anywhere (no GPU, no torch).

Usage: sweep_totals.py SHARD.jsonl [...] [--against SHARD.jsonl ...] [--band 0.95,1.05]
"""
import argparse
import json
import statistics


def load(files):
    rows = {}
    for f in files:
        with open(f) as fh:
            for line in fh:
                if line.strip():
                    r = json.loads(line)
                    rows[(r["level"], r["task"])] = r
    return rows


def flagged(r):
    return bool(r.get("flags"))  # kernelbench_sweep.py keeps the error and critical flags only


def totals(rows, lo, hi):
    ok = [r for r in rows.values() if r["status"] == "ok" and r.get("eager")]
    xs = [r["eager"] for r in ok]
    commits = sorted({r.get("commit", "?") for r in rows.values()})
    print("%d tasks (judges %s): %d ok, %d with an error or critical flag" % (
        len(rows), ", ".join(commits), len(ok), sum(flagged(r) for r in rows.values())))
    if not xs:
        return
    print("own code x eager: median %.3f; in %.2f-%.2f: %d of %d; in 0.90-1.10: %d" % (
        statistics.median(xs), lo, hi, sum(lo <= x <= hi for x in xs), len(xs), sum(0.9 <= x <= 1.1 for x in xs)))
    for lv in sorted({r["level"] for r in ok}):
        ls = [r["eager"] for r in ok if r["level"] == lv]
        print("  level %d: %d tasks, median %.3f, %d in the band" % (lv, len(ls), statistics.median(ls),
                                                                     sum(lo <= x <= hi for x in ls)))
    walls = [r["wall"] for r in rows.values() if r.get("wall")]
    if walls:
        print("evaluation wall: median %.1f s, %.0f s in all" % (statistics.median(walls), sum(walls)))
    # The worker's start (torch imported, the GPU found) is in the wall: the sweep starts each task's worker when the
    # task before it has ended, so that no import runs beside an evaluation's frames; the workbench starts it while
    # the LLM answers (Evaluator::prestart). Rows from session 20 on keep it.
    less = [r["wall"] - r["start"] for r in rows.values() if r.get("wall") and r.get("start") == r.get("start")
            and r.get("start") is not None]
    if less:
        print("evaluation wall less the worker's start: median %.1f s (%d tasks)" % (statistics.median(less), len(less)))
    out = sorted((r for r in ok if not lo <= r["eager"] <= hi), key=lambda r: r["eager"])
    print("outside the band: " + (", ".join("L%d %s %.3f" % (r["level"], r["task"], r["eager"]) for r in out) or "none"))


def agreement(a, b, lo, hi):
    both = sorted(set(a) & set(b))
    if not both:
        print("no task in both sweeps")
        return
    ratios, moved, flips = [], [], []
    for k in both:
        ra, rb = a[k], b[k]
        if flagged(ra) != flagged(rb):
            flips.append(k)
        if ra.get("eager") and rb.get("eager"):
            ratios.append(rb["eager"] / ra["eager"])
            if (lo <= ra["eager"] <= hi) != (lo <= rb["eager"] <= hi) or not lo <= ra["eager"] <= hi:
                moved.append("%s %.3f/%.3f" % (k[1], ra["eager"], rb["eager"]))
    inside = len(both) - len(moved)
    print("%d tasks in both: %d in the band both times; clean in one and flagged in the other: %d" % (
        len(both), inside, len(flips)))
    if ratios:
        print("second / first: median %.3f, median absolute deviation %.3f" % (
            statistics.median(ratios), statistics.median(abs(x - 1) for x in ratios)))
    if moved:
        print("outside in either: " + ", ".join(moved))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--against", nargs="*", default=[])
    ap.add_argument("--band", default="0.95,1.05")
    a = ap.parse_args()
    lo, hi = (float(x) for x in a.band.split(","))
    rows = load(a.files)
    totals(rows, lo, hi)
    if a.against:
        print("\nagainst the second sweep:")
        other = load(a.against)
        totals(other, lo, hi)
        agreement(rows, other, lo, hi)


if __name__ == "__main__":
    main()
