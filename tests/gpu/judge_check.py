#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The judge on a GPU (device machine only; not run by CI): the eight showcase kernels and the cheat
catalogue through `kwb_worker.py eval --device cuda`, and, when --old-worker names a checkout of the
previous single-process worker, the showcase through that one too (speedups before/after).

Prints one table row per evaluation and writes every result as JSON lines to --out.
A cheat is "caught" when its status is not ok or a run-time integrity check says yes with severity
error or critical; an honest candidate must be ok with no such flag.

Usage: judge_check.py --out results.jsonl [--old-worker DIR/kwb_worker.py] [--only showcase|cheats]
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
WORKER = os.path.join(ROOT, "core", "eval", "worker", "kwb_worker.py")
SHOWCASE = ["39_GRU", "40_GRUHidden", "41_GRUBidirectional", "42_GRUBidirectionalHidden", "37_LSTMCn", "36_LSTMHn",
            "35_LSTM", "38_LSTMBidirectional"]
HONEST = [("level1/1_ReLU.py", "tests/data/candidates/relu_correct.py"),
          ("level1/1_ReLU.py", "tests/data/candidates/triton_relu.py")]


def evaluate(worker, task, cand, extra=()):
    t0 = time.time()
    p = subprocess.run([sys.executable, worker, "eval", task, cand, "--device", "cuda", "--json"] + list(extra),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=900)
    try:
        r = json.loads(p.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        r = {"status": "no_result", "reason": p.stderr[-500:], "runtime_checks": []}
    r["_wall"] = time.time() - t0
    return r


def flags(r):
    return [v["detector"] for v in r.get("runtime_checks", []) if v["outcome"] == "yes"
            and v["severity"] in ("error", "critical")]


def speedup(r, base):
    b, c = r.get(base, {}), r.get("candidate", {})
    return b["median_ms"] / c["median_ms"] if b.get("samples") and c.get("median_ms") else float("nan")


def row(kind, name, r, verdict):
    print("%-9s %-34s %-15s %7.2f %7.2f %8s %6.1fs %-8s %s" % (
        kind, name[:34], r["status"], speedup(r, "eager"), speedup(r, "graph"),
        "%.2g" % r["max_abs_err"] if isinstance(r.get("max_abs_err"), float) else "-", r["_wall"], verdict,
        ",".join(flags(r)) or r.get("reason", "")[:90]), flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--old-worker")
    ap.add_argument("--only")
    a = ap.parse_args()
    out = open(a.out, "a")
    print("%-9s %-34s %-15s %7s %7s %8s %7s %-8s %s" % ("kind", "candidate", "status", "x eager", "x graph",
                                                        "max err", "wall", "verdict", "flags / reason"))
    bad = 0
    if a.only in (None, "showcase"):
        for t in SHOWCASE:
            task, cand = os.path.join(ROOT, "tasks", "level3", t + ".py"), os.path.join(ROOT, "resources", "showcase", t + ".py")
            for label, worker in (("showcase", WORKER),) + ((("old", a.old_worker),) if a.old_worker else ()):
                r = evaluate(worker, task, cand)
                ok = r["status"] == "ok" and (label == "old" or not flags(r))
                bad += not ok
                row(label, t, r, "clean" if ok else "FLAGGED")
                out.write(json.dumps(dict(r, _kind=label, _name=t)) + "\n")
                out.flush()
    if a.only in (None, "cheats"):
        for task, cand in HONEST:
            r = evaluate(WORKER, os.path.join(ROOT, "tasks", task), os.path.join(ROOT, cand))
            ok = r["status"] == "ok" and not flags(r)
            bad += not ok
            row("honest", os.path.basename(cand), r, "clean" if ok else "FLAGGED")
            out.write(json.dumps(dict(r, _kind="honest", _name=cand)) + "\n")
        for cand in sorted(glob.glob(os.path.join(ROOT, "tests", "data", "cheats", "*.py"))
                           + glob.glob(os.path.join(ROOT, "tests", "data", "cheats", "gpu", "*.py"))
                           + glob.glob(os.path.join(ROOT, ".attacks", "*.py"))):
            head = open(cand).read(800)
            m = re.search(r"Task: (\S+)", head)
            task = os.path.join(ROOT, "tasks", m.group(1) if m else "level1/1_ReLU.py")
            r = evaluate(WORKER, task, cand)
            caught = r["status"] != "ok" or bool(flags(r))
            bad += not caught
            row("cheat", os.path.relpath(cand, ROOT).replace("tests/data/cheats/", ""), r,
                "caught" if caught else "PASSED!")
            out.write(json.dumps(dict(r, _kind="cheat", _name=cand)) + "\n")
    print("problems: %d" % bad)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
