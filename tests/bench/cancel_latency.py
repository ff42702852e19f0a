#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Figures, not a test: how long a cancel takes. A one-shot `kwb_worker.py eval` of a hanging candidate
(tests/data/candidates/relu_hang.py, whose second call spins for ever) is signalled once it reports phase
"running"; printed is the time from the signal until the CLI, its judge, both runners and their watchdogs
have all ended, per signal, with the median and the worst of N runs. tests/python/test_worker_cancel.py
asserts that they end; this measures how fast.

Usage: cancel_latency.py [-n 10] [--signal TERM|INT|KILL ...]
"""
import argparse
import os
import signal
import statistics
import subprocess
import sys
import threading
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
WORKER = os.path.join(ROOT, "core", "eval", "worker", "kwb_worker.py")
PYTHON = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable


def descendants(root):
    kids = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open("/proc/%s/stat" % name) as f:
                    kids.setdefault(int(f.read().rsplit(")", 1)[1].split()[1]), []).append(int(name))
            except (OSError, IndexError, ValueError):
                pass
    todo, seen = [root], []
    while todo:
        p = todo.pop()
        seen.append(p)
        todo.extend(kids.get(p, []))
    return seen


def alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def one(sig):
    p = subprocess.Popen([PYTHON, WORKER, "eval", os.path.join(ROOT, "tasks", "level1", "1_ReLU.py"),
                          os.path.join(ROOT, "tests", "data", "candidates", "relu_hang.py"), "--device", "cpu",
                          "--json", "--verbose"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        for line in iter(p.stderr.readline, b""):
            if line.strip() == b"[phase] running":
                break
        else:
            raise SystemExit("the evaluation ended before phase running")
        threading.Thread(target=lambda: [None for _ in iter(p.stderr.readline, b"")], daemon=True).start()
        pids = descendants(p.pid)
        t0 = time.monotonic()
        p.send_signal(sig)
        while any(alive(x) for x in pids) and time.monotonic() - t0 < 60:
            time.sleep(0.005)
        return time.monotonic() - t0, len(pids)
    finally:
        p.kill()
        p.wait()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-n", type=int, default=10)
    ap.add_argument("--signal", nargs="+", default=["TERM", "INT", "KILL"])
    a = ap.parse_args()
    for name in a.signal:
        sig = getattr(signal, "SIG" + name)
        took = []
        for _ in range(a.n):
            t, n = one(sig)
            took.append(t)
        print("SIG%-4s  %d runs, %d processes each: median %.3f s, worst %.3f s, best %.3f s"
              % (name, a.n, n, statistics.median(took), max(took), min(took)), flush=True)


if __name__ == "__main__":
    main()
