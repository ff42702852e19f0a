#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""All of KernelBench as a regression suite for the evaluator (device machine only; not run by CI).

Every task of a KernelBench checkout (levels given) is evaluated, one at a time, with its honest
self-candidate (the task's own code with `Model` renamed `ModelNew`). For each task: status,
speedups, the reference's peak device memory (as the judge measures it), the evaluator's peak
(device-wide memory in use while it ran, judge and candidate process together, less what was in use
before), their ratio, wall time and any raised integrity flag. Totals by level and by task class at
the end. An honest candidate should come back ok at ~1.00x with no flag.

Usage: kernelbench_sweep.py KERNELBENCH_DIR [--levels 1,2,3] [--first N1,N2] [--budget-s 540]
                            [--out results.jsonl] [-- extra kwb_worker eval options]
"""
import argparse
import glob
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
WORKER = os.path.join(ROOT, "core", "eval", "worker", "kwb_worker.py")


def gpu_used_mib():
    out = subprocess.run(["nvidia-smi", "--query-gpu=memory.used", "--format=csv,noheader,nounits"],
                         stdout=subprocess.PIPE, text=True).stdout
    return int(out.split()[0])


class PeakSampler(threading.Thread):
    def __init__(self):
        super().__init__(daemon=True)
        self.peak, self.stop = 0, False

    def run(self):
        while not self.stop:
            try:
                self.peak = max(self.peak, gpu_used_mib())
            except Exception:
                pass
            time.sleep(0.05)


def self_candidate(src):
    src = re.sub(r"\bclass Model\b", "class ModelNew", src)
    return re.sub(r"super\(\s*Model\s*,", "super(ModelNew,", src)


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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kernelbench")
    ap.add_argument("--levels", default="1,2,3")
    ap.add_argument("--first", default="", help="comma-separated level1 task numbers to run first")
    ap.add_argument("--budget-s", type=float, default=1e9, help="stop starting tasks after this many seconds")
    ap.add_argument("--task-timeout", type=float, default=300)
    ap.add_argument("--out")
    a, extra = ap.parse_known_args()
    a.extra = [x for x in extra if x != "--"]
    tasks = []
    for lv in [int(x) for x in a.levels.split(",")]:
        files = glob.glob(os.path.join(a.kernelbench, "KernelBench", "level%d" % lv, "*.py")) or \
            glob.glob(os.path.join(a.kernelbench, "level%d" % lv, "*.py"))
        files.sort(key=lambda p: int(re.match(r"(\d+)", os.path.basename(p)).group(1)))
        tasks += [(lv, f) for f in files]
    first = {int(x) for x in a.first.split(",") if x}
    tasks.sort(key=lambda t: (0 if t[0] == 1 and int(re.match(r"(\d+)", os.path.basename(t[1])).group(1)) in first
                              else 1))
    out = open(a.out, "a") if a.out else None
    tmp = tempfile.mkdtemp(prefix="kwb-sweep-")
    t_start = time.time()
    rows = []
    print("%-3s %-42s %-14s %-22s %7s %7s %8s %8s %6s %7s %s" % ("lv", "task", "class", "status", "x eager", "x graph",
                                                                "ref GiB", "eval GiB", "ratio", "wall s", "flags / reason"),
          flush=True)
    for lv, path in tasks:
        if time.time() - t_start > a.budget_s:
            break
        name = os.path.splitext(os.path.basename(path))[0]
        cand = os.path.join(tmp, "self_%d_%s.py" % (lv, name))
        with open(path) as f, open(cand, "w") as g:
            g.write(self_candidate(f.read()))
        idle = gpu_used_mib()
        sampler = PeakSampler()
        sampler.start()
        t0 = time.time()
        p = subprocess.Popen([sys.executable, WORKER, "eval", path, cand, "--device", "cuda", "--json",
                              "--compile-timeout", str(a.task_timeout), "--run-timeout", str(a.task_timeout)] + a.extra,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
        try:
            stdout, stderr = p.communicate(timeout=a.task_timeout * 2 + 30)
            r = json.loads(stdout.strip().splitlines()[-1])
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, 9)  # the whole evaluation, judge and candidate's process too
            p.communicate()
            r = {"status": "sweep_timeout", "reason": "over %.0f s" % (a.task_timeout * 2 + 30)}
        except (ValueError, IndexError):
            r = {"status": "no_result", "reason": (stderr or "")[-300:].replace("\n", " ")}
        wall = time.time() - t0
        sampler.stop = True
        sampler.join()
        ev_peak = max(0, sampler.peak - idle) / 1024.0
        ref_peak = (r.get("reference_peak_bytes") or -1) / 2 ** 30
        sp = lambda k: (r[k]["median_ms"] / r["candidate"]["median_ms"]) if r.get(k, {}).get("samples") and \
            r.get("candidate", {}).get("median_ms") else float("nan")
        flags = [v["detector"] for v in r.get("runtime_checks", []) if v["outcome"] == "yes"]
        row = {"level": lv, "task": name, "class": task_class(lv, name), "status": r["status"],
               "eager": sp("eager"), "graph": sp("graph"), "ref_gib": ref_peak, "eval_gib": ev_peak,
               "ratio": ev_peak / ref_peak if ref_peak > 0 else float("nan"), "wall": wall, "flags": flags,
               "reason": r.get("reason", ""), "memory_note": r.get("memory_note", "")}
        rows.append(row)
        print("%-3d %-42s %-14s %-22s %7.2f %7.2f %8.2f %8.2f %6.2f %7.1f %s" % (
            lv, name[:42], row["class"], r["status"], row["eager"], row["graph"], ref_peak, ev_peak, row["ratio"],
            wall, ",".join(flags) or (r.get("reason", "")[:80] if r["status"] != "ok" else r.get("memory_note", "")[:80])),
            flush=True)
        if out:
            out.write(json.dumps(row) + "\n")
            out.flush()
    print("\ntotals (%d tasks in %.0f s):" % (len(rows), time.time() - t_start))
    for lv in sorted({r["level"] for r in rows}):
        rs = [r for r in rows if r["level"] == lv]
        ok = [r for r in rs if r["status"] == "ok"]
        sp = [r["eager"] for r in ok if r["eager"] == r["eager"]]
        print("  level %d: %d/%d ok, median %.3fx vs eager, %d with a flag, statuses: %s" % (
            lv, len(ok), len(rs), statistics.median(sp) if sp else float("nan"), sum(1 for r in rs if r["flags"]),
            ", ".join("%s %d" % (s, sum(1 for r in rs if r["status"] == s)) for s in sorted({r["status"] for r in rs}))))
    for c in sorted({r["class"] for r in rows}):
        ratios = [r["ratio"] for r in rows if r["class"] == c and r["ratio"] == r["ratio"] and r["ref_gib"] > 0.05]
        if ratios:
            print("  %-15s evaluator peak / reference footprint: median %.2f, max %.2f (%d tasks over 50 MiB)" % (
                c, statistics.median(ratios), max(ratios), len(ratios)))


if __name__ == "__main__":
    main()
