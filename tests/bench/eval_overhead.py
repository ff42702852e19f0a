#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Figures for the evaluator's judge and runners (not a test), through the real serve protocol:

1. fixed overhead per candidate beyond compile and timed runs, with the pre-started judge and runner
   (as the C++ host keeps one warm): wall time from request to result, minus the compile phase
   (compiling -> running) and the run phase (running -> result), as tests/bench/bench_eval.cpp
   defines it; the run phase is printed too, since the judge's checks of timed calls live there;
2. the spread (max/min - 1) of N repeated speedups of one candidate against the CUDA graph (GPU) or
   eager (CPU).

Usage: eval_overhead.py [--task T] [--candidate C] [--device cpu|cuda] [-n 5]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
WORKER_DIR = os.path.join(ROOT, "core", "eval", "worker")
sys.path.insert(0, WORKER_DIR)
from kwb_worker.host import open_line  # noqa: E402


WORKER = os.path.join(WORKER_DIR, "kwb_worker.py")
OLD = False


def start():
    p = subprocess.Popen([sys.executable, "-u", WORKER, "serve"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    return p


def wait_warm(p):
    """The judge said ready and both its runners (the reference's and the candidate's) logged ready: what a
    pre-started worker looks like."""
    ready = json.loads(p.stdout.readline())
    assert ready.get("event") == "ready", ready
    runners = 0
    while OLD is False and runners < 2:
        line = p.stderr.readline()
        if not line:
            break
        runners += "[kwb_runner] ready" in line
    return ready


def run(p, req):
    key = None if OLD else os.urandom(32)
    t0 = time.perf_counter()
    p.stdin.write(json.dumps(dict(req, key=key.hex()) if key else req) + "\n")
    p.stdin.flush()
    seen = {}
    while True:
        line = p.stdout.readline()
        if not line:
            raise RuntimeError("worker died")
        ev = open_line(line, key)
        now = time.perf_counter() - t0
        if ev is None:
            continue
        if ev.get("event") == "phase":
            seen.setdefault(ev["phase"], now)
        elif ev.get("event") in ("result", "error"):
            p.wait()
            return now, seen, ev.get("result") or ev


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--task", default=os.path.join(ROOT, "tasks", "level1", "1_ReLU.py"))
    ap.add_argument("--candidate", default=os.path.join(ROOT, "tests", "data", "candidates", "relu_correct.py"))
    ap.add_argument("--device", default="cpu")
    ap.add_argument("-n", type=int, default=5)
    ap.add_argument("--old-worker", help="a protocol-1 kwb_worker.py (the single-process worker) to compare")
    a = ap.parse_args()
    global WORKER, OLD
    OLD = bool(a.old_worker)
    if OLD:
        WORKER = os.path.abspath(a.old_worker)
    req = {"v": 1 if OLD else 2, "id": "bench", "op": "eval", "task_file": os.path.abspath(a.task),
           "candidate_file": os.path.abspath(a.candidate), "device": a.device, "trials": 5,
           "warmup": 3 if a.device == "cuda" else 1, "repeat": 20 if a.device == "cuda" else 5, "seed": 42,
           "baselines": True, "graph_baseline": True, "integrity": True, "scratch_dir": os.getcwd()}
    print("evaluator overhead: %s with %s on %s, %d runs" % (os.path.basename(a.task), os.path.basename(a.candidate),
                                                             a.device, a.n))
    print("  %-3s %8s %8s %8s %10s %8s %8s" % ("#", "wall s", "comp s", "run s", "overhead s", "status", "speedup"))
    nxt = start()
    overheads, speedups = [], []
    for i in range(a.n):
        p = nxt
        wait_warm(p)
        nxt = start() if i + 1 < a.n else None  # the next pair warms while this one works, as the host does
        wall, seen, r = run(p, req)
        comp = seen.get("running", wall) - seen.get("compiling", wall)
        runp = wall - seen.get("running", wall)
        over = wall - comp - runp
        base = r["graph"] if r.get("graph", {}).get("samples") else r.get("eager", {})
        sp = base["median_ms"] / r["candidate"]["median_ms"] if base.get("samples") and r["candidate"].get("median_ms") else float("nan")
        overheads.append(over)
        speedups.append(sp)
        print("  %-3d %8.3f %8.3f %8.3f %10.3f %8s %8.3f" % (i + 1, wall, comp, runp, over, r.get("status"), sp))
    print("  median fixed overhead: %.3f s (min %.3f, max %.3f)" % (statistics.median(overheads), min(overheads),
                                                                   max(overheads)))
    good = [s for s in speedups if s == s]
    if good:
        print("  speedup vs %s: median %.3f, spread (max/min - 1) %.2f%%" % (
            "CUDA graph" if a.device == "cuda" else "eager", statistics.median(good), 100 * (max(good) / min(good) - 1)))


if __name__ == "__main__":
    main()
