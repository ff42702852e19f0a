#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""GPU check of the evaluator, for the H100 machine (Python + torch + Triton, no Qt).

Calls the worker's one-shot mode (core/eval/worker/kwb_worker.py) as the engine would, and prints:
  1. the eight level-3 recurrent tasks' baselines: eager and CUDA-graph median ms and CV;
  2. candidates: a naive Triton ReLU (profiled with ncu when present), a deliberately wrong Triton
     ReLU, a naive Triton GRU (one launch per time step) on 39_GRU, and the cheats that only a GPU
     shows: cuDNN wrapped in a CUDA graph, work on a side stream, torch.empty games.
Writes everything as JSON to $OUT/gpu_eval_check.json when OUT is set.

  python3 tests/gpu/gpu_eval_check.py [--repeat 20] [--quick] [--only baselines|candidates]
"""
import argparse
import json
import os
import subprocess
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
WORKER = os.path.join(ROOT, "core", "eval", "worker", "kwb_worker.py")
CANDS = os.path.join(ROOT, "tests", "data", "candidates")
RECURRENT = ["35_LSTM", "36_LSTMHn", "37_LSTMCn", "38_LSTMBidirectional", "39_GRU", "40_GRUHidden",
             "41_GRUBidirectional", "42_GRUBidirectionalHidden"]

# (label, task, candidate, extra args, what we expect)
CANDIDATES = [
    ("triton ReLU (naive)", "level1/1_ReLU.py", "triton_relu.py", ["--profile"], "ok"),
    ("triton ReLU (wrong)", "level1/1_ReLU.py", "triton_relu_wrong.py", [], "wrong_result"),
    ("pure PyTorch ReLU", "level1/1_ReLU.py", "relu_correct.py", [], "ok"),
    ("empty games", "level1/1_ReLU.py", "relu_aliasing.py", [], "wrong_result + integrity.output_aliasing"),
    ("side stream", "level1/1_ReLU.py", "side_stream_relu.py", [], "integrity.side_stream"),
    ("cuDNN in a CUDA graph", "level3/39_GRU.py", "graph_cheat_gru.py", [], "ok, ~1x vs graph"),
    ("triton GRU (naive)", "level3/39_GRU.py", "triton_gru_naive.py", ["--trials", "2"], "ok"),
    ("CUDA C++ load_inline", "level1/1_ReLU.py", "cuda_inline_relu.py", [], "ok (first call builds it)"),
]


def run_worker(args, timeout):
    cmd = [sys.executable, WORKER] + args + ["--json"]
    t0 = time.time()
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"status": "script_timeout", "reason": "no answer in %d s" % timeout}, time.time() - t0
    try:
        return json.loads(p.stdout), time.time() - t0
    except ValueError:
        return {"status": "no_json", "reason": (p.stderr or "").strip().splitlines()[-1:] or ""}, time.time() - t0


def fmt(v, spec="%.3f"):
    return spec % v if isinstance(v, (int, float)) else "-"


def yes_checks(r):
    return [v["detector"] for v in r.get("runtime_checks", []) if v.get("outcome") == "yes"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="fewer rounds (repeat 10) and tasks 37/39/41 only")
    ap.add_argument("--only", choices=("baselines", "candidates"))
    ap.add_argument("--timeout", type=int, default=240, help="per worker call, seconds")
    a = ap.parse_args()
    repeat = 10 if a.quick else a.repeat
    tasks = ["37_LSTMCn", "39_GRU", "41_GRUBidirectional"] if a.quick else RECURRENT
    report = {"repeat": repeat, "warmup": a.warmup, "python": sys.version.split()[0], "baselines": {},
              "candidates": []}

    if a.only != "candidates":
        print("== Baselines (median ms over %d rounds, L2 flushed; CV in %%)" % repeat, flush=True)
        print("%-28s %10s %7s %10s %7s %8s %7s" % ("task", "eager", "cv", "graph", "cv", "ratio", "wall s"))
        for name in tasks:
            r, wall = run_worker(["baseline", os.path.join(ROOT, "tasks", "level3", name + ".py"), "--device", "cuda",
                                  "--repeat", str(repeat), "--warmup", str(a.warmup)], a.timeout)
            report["baselines"][name] = r
            e, g = r.get("eager") or {}, r.get("graph") or {}
            ratio = e["median_ms"] / g["median_ms"] if e.get("median_ms") and g.get("median_ms") else None
            print("%-28s %10s %7s %10s %7s %8s %7.1f  %s" % (
                name, fmt(e.get("median_ms")), fmt((e.get("cv") or 0) * 100, "%.1f") if e.get("samples") else "-",
                fmt(g.get("median_ms")), fmt((g.get("cv") or 0) * 100, "%.1f") if g.get("samples") else "-",
                fmt(ratio, "%.2fx"), wall, "" if r.get("status") == "ok" else r.get("status") + ": " + str(r.get("reason"))),
                flush=True)
        if report["baselines"]:
            dev = next(iter(report["baselines"].values())).get("device")
            print("device: %s" % dev)

    if a.only != "baselines":
        print("\n== Candidates", flush=True)
        print("%-24s %-15s %-15s %9s %9s %9s %9s %9s  %s" % ("candidate", "task", "status", "cand ms", "eager ms",
                                                             "graph ms", "x eager", "x graph", "integrity yes"))
        for label, task_rel, cand, extra, expect in CANDIDATES:
            args = ["eval", os.path.join(ROOT, "tasks", task_rel), os.path.join(CANDS, cand), "--device", "cuda",
                    "--repeat", str(repeat), "--warmup", str(a.warmup)] + extra
            r, wall = run_worker(args, a.timeout)
            c, e, g = r.get("candidate") or {}, r.get("eager") or {}, r.get("graph") or {}
            xe = e["median_ms"] / c["median_ms"] if c.get("median_ms") and e.get("median_ms") else None
            xg = g["median_ms"] / c["median_ms"] if c.get("median_ms") and g.get("median_ms") else None
            report["candidates"].append({"label": label, "task": task_rel, "candidate": cand, "expect": expect,
                                         "wall_s": wall, "result": r})
            print("%-24s %-15s %-15s %9s %9s %9s %9s %9s  %s" % (
                label, os.path.basename(task_rel)[:15], r.get("status"), fmt(c.get("median_ms"), "%.4f"),
                fmt(e.get("median_ms"), "%.4f"), fmt(g.get("median_ms"), "%.4f"), fmt(xe, "%.2f"), fmt(xg, "%.2f"),
                ",".join(x.replace("integrity.", "") for x in yes_checks(r)) or "-"), flush=True)
            if r.get("status") != "ok":
                print("    reason: %s" % r.get("reason"))
            if r.get("profile"):
                print("    profile: " + ", ".join("%s=%.4g" % kv for kv in sorted(r["profile"].items())))
            elif "--profile" in extra:
                print("    %s" % r.get("profile_note"))
            if r.get("max_abs_err") is not None:
                print("    max abs err %.3g, vs fp64 %s; expected: %s" % (r["max_abs_err"],
                                                                         fmt(r.get("max_abs_err_fp64"), "%.3g"), expect))

    out = os.environ.get("OUT")
    if out:
        os.makedirs(out, exist_ok=True)
        with open(os.path.join(out, "gpu_eval_check.json"), "w") as f:
            json.dump(report, f, indent=1)
        print("\nwrote %s" % os.path.join(out, "gpu_eval_check.json"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
