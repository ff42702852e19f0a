#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""All of KernelBench as the evaluator's honest set (device machine only; not run by CI).

Every task of a KernelBench checkout (levels given) is evaluated, one at a time, with its honest
self-candidate (the task's own code with `Model` renamed `ModelNew`), through pre-started workers (the
next worker imports torch and starts its runner while the current evaluation runs). For each task:
status, speedups, the reference's footprint (as the judge measures it), the evaluator's peak (device-wide
memory in use while it ran, judge, runner and candidate together, less what was in use before), their
ratio, wall time and any error/critical integrity flag. An honest candidate must come back ok at ~1.00x
with no flag: every flag here is a false positive.

Resumable in shards: --state FILE holds one JSON line per finished task; a run skips those and stops
starting tasks after --budget-s (a device command may run 10 minutes). Totals cover every line of the
state file.

Usage: kernelbench_sweep.py KERNELBENCH_DIR --state FILE [--levels 1,2,3] [--budget-s 540] [--commit ID] [--only REGEX]
                           [--every N --start M]   (a shard: every Nth task from the Mth, e.g. one per GPU)
"""
import argparse
import glob
import json
import os
import re
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpu_runs import Evaluations, PeakSampler, flags, git_commit, gpu_used_mib, speedup, write_own_code  # noqa: E402


def task_class(level, name):
    n = name.lower()
    if level == 3:
        return "model"
    if level == 2:
        return "fused"
    if "conv" in n:
        return "conv"
    if any(k in n for k in ("matmul", "matrix", "gemm", "bmm")):
        return "matmul"
    if any(k in n for k in ("norm",)):
        return "norm"
    if any(k in n for k in ("pool",)):
        return "pool"
    if any(k in n for k in ("relu", "sigmoid", "tanh", "gelu", "selu", "elu", "swish", "softplus", "softsign",
                            "hardsigmoid", "hardtanh", "softmax", "logsoftmax")):
        return "elementwise"
    return "reduction/other"


def task_list(kb, levels):
    tasks = []
    for lv in levels:
        files = glob.glob(os.path.join(kb, "KernelBench", "level%d" % lv, "*.py")) or \
            glob.glob(os.path.join(kb, "level%d" % lv, "*.py"))
        files.sort(key=lambda p: int(re.match(r"(\d+)", os.path.basename(p)).group(1)))
        tasks += [(lv, f) for f in files]
    return tasks


def load_state(path):
    rows = []
    if path and os.path.exists(path):
        with open(path) as f:
            for line in f:
                try:
                    rows.append(json.loads(line))
                except ValueError:
                    pass
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kernelbench")
    ap.add_argument("--levels", default="1,2,3")
    ap.add_argument("--budget-s", type=float, default=540.0, help="stop starting tasks after this many seconds")
    ap.add_argument("--task-timeout", type=float, default=120.0)
    ap.add_argument("--state", required=True, help="JSON lines, one per finished task; read to resume")
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--commit", default=None)
    ap.add_argument("--every", type=int, default=1, help="a shard: every Nth task of the levels' list ...")
    ap.add_argument("--start", type=int, default=0, help="... from this one (0-based)")
    ap.add_argument("--only", default="", help="only tasks whose name matches this regular expression")
    a = ap.parse_args()
    commit = a.commit or git_commit()
    done = {(r["level"], r["task"]) for r in load_state(a.state)}
    listed = task_list(a.kernelbench, [int(x) for x in a.levels.split(",")])[a.start::max(1, a.every)]
    todo = [(lv, p) for lv, p in listed if (lv, os.path.splitext(os.path.basename(p))[0]) not in done
            and re.search(a.only, os.path.basename(p))]
    print("sweep at commit %s: %d tasks done before, %d to go" % (commit, len(done), len(todo)), flush=True)
    out = open(a.state, "a")
    tmp = tempfile.mkdtemp(prefix="kwb-sweep-")
    t_start = time.time()
    ev = Evaluations(device=a.device)
    print("%-3s %-42s %-14s %-16s %7s %7s %8s %8s %6s %6s %s" % ("lv", "task", "class", "status", "x eager", "x graph",
                                                              "ref GiB", "eval GiB", "ratio", "wall", "flags / reason"),
          flush=True)
    try:
        for i, (lv, path) in enumerate(todo):
            if time.time() - t_start > a.budget_s:
                print("(budget of %.0f s reached: %d tasks left for the next shard)" % (a.budget_s, len(todo) - i),
                      flush=True)
                break
            name = os.path.splitext(os.path.basename(path))[0]
            cand = write_own_code(path, tmp)
            idle = gpu_used_mib()
            sampler = PeakSampler()
            sampler.start()
            r = ev.evaluate(path, cand, timeout=a.task_timeout)
            sampler.stop = True
            sampler.join()
            ev_peak = max(0, sampler.peak - idle) / 1024.0 if idle >= 0 else float("nan")
            ref_peak = (r.get("reference_peak_bytes") or -1) / 2 ** 30
            row = {"level": lv, "task": name, "class": task_class(lv, name), "status": r["status"],
                   "eager": speedup(r, "eager"), "graph": speedup(r, "graph"), "ref_gib": ref_peak,
                   "eval_gib": ev_peak, "ratio": ev_peak / ref_peak if ref_peak > 0 else float("nan"),
                   "wall": r["_wall"], "start": r["_start"], "flags": flags(r), "reason": r.get("reason", ""),
                   "memory_note": r.get("memory_note", ""), "commit": commit,
                   "eager_ms": (r.get("eager") or {}).get("median_ms"), "candidate_ms": (r.get("candidate") or {}).get("median_ms")}
            print("%-3d %-42s %-14s %-16s %7.2f %7.2f %8.2f %8.2f %6.2f %6.1f %s" % (
                lv, name[:42], row["class"], r["status"], row["eager"], row["graph"], ref_peak, ev_peak, row["ratio"],
                row["wall"], ",".join(row["flags"]) or (r.get("reason", "")[:90] if r["status"] != "ok" else "")),
                flush=True)
            out.write(json.dumps(row) + "\n")
            out.flush()
    finally:
        ev.close()
    summarize(load_state(a.state), time.time() - t_start)


def summarize(rows, seconds):
    print("\ntotals over the state file (%d tasks; this shard %.0f s):" % (len(rows), seconds))
    for lv in sorted({r["level"] for r in rows}):
        rs = [r for r in rows if r["level"] == lv]
        ok = [r for r in rs if r["status"] == "ok"]
        sp = [r["eager"] for r in ok if r["eager"] == r["eager"]]
        print("  level %d: %d/%d ok, median %.3fx vs eager, %d with an error/critical flag, wall median %.1f s, "
              "statuses: %s" % (lv, len(ok), len(rs), statistics.median(sp) if sp else float("nan"),
                                sum(1 for r in rs if r["flags"]), statistics.median(r["wall"] for r in rs),
                                ", ".join("%s %d" % (s, sum(1 for r in rs if r["status"] == s))
                                          for s in sorted({r["status"] for r in rs}))))
    ok = [r for r in rows if r["status"] == "ok" and r["eager"] == r["eager"]]
    if ok:
        sp = [r["eager"] for r in ok]
        out = [r for r in ok if not 0.90 <= r["eager"] <= 1.10]
        print("  own code vs eager: median %.3f, min %.3f, max %.3f; outside 0.90-1.10: %s" % (
            statistics.median(sp), min(sp), max(sp), ", ".join("L%d %s %.2f" % (r["level"], r["task"], r["eager"])
                                                              for r in out) or "none"))
    flagged = [r for r in rows if r["flags"] or r["status"] != "ok"]
    if flagged:
        print("  not ok or flagged (false positives): " + "; ".join(
            "L%d %s %s %s" % (r["level"], r["task"], r["status"], ",".join(r["flags"])) for r in flagged))
    print("  wall: %.0f s in all, median %.1f s a task" % (sum(r["wall"] for r in rows),
                                                          statistics.median(r["wall"] for r in rows) if rows else 0))
    for c in sorted({r["class"] for r in rows}):
        ratios = [r["ratio"] for r in rows if r["class"] == c and r["ratio"] == r["ratio"] and r["ref_gib"] > 0.05]
        if ratios:
            print("  %-15s evaluator peak / reference footprint: median %.2f, max %.2f (%d tasks over 50 MiB)" % (
                c, statistics.median(ratios), max(ratios), len(ratios)))


if __name__ == "__main__":
    main()
