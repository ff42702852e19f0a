#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""GPU machine: captures real Nsight Compute output of the worker's profile for the CPU tests.

For each case it runs ncu exactly as `kwb_worker.profile.profile_candidate` does (same metrics,
launch bound, time limit, NVTX range) and writes, under OUT (default $OUT or ./profile_capture):
  ncu_<case>.csv       ncu's raw stdout (the CSV the worker parses)
  ncu_<case>.err       ncu's stderr
  profile_<case>.json  the parsed profile dict, with profile_seconds (what profiling cost)
and, with --eval, `kwb_worker.py eval --profile --json` of the cases named there (eval_<case>.json),
plus device.json (torch's device properties and nvidia-smi's clocks, to cross-check the peaks ncu
reports). Copy the files to tests/data/profile/ to refresh the test data.

  python3 tests/gpu/profile_capture.py [--out DIR] [--cases a,b] [--eval a,b]
"""
import argparse
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "core", "eval", "worker"))

from kwb_worker import profile  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, "resources", "showcase"))
from make_showcase import candidate as showcase_candidate  # noqa: E402  (generated from the sources, not committed)

DEMO = os.path.join(ROOT, "resources", "demo", "20261122-204025_39_GRU_replay", "kernels")
CASES = {
    # 39_GRU: the demo run's naive per-step seed, its algorithm-optimized child, the showcase kernel.
    "gru39_seed": ("tasks/level3/39_GRU.py", os.path.join(DEMO, "c0002.py")),
    "gru39_showcase": ("tasks/level3/39_GRU.py", showcase_candidate("39_GRU")),
    # Level 1: a memory-bound elementwise kernel and an fp32 GEMM (cuBLAS, TF32 off).
    "relu1_triton": ("tasks/level1/1_ReLU.py", "tests/data/candidates/triton_relu.py"),
    "matmul3_cublas": ("tasks/level1/3_Matmul.py", "tests/data/profile/matmul_reference.py"),
}


def device_info():
    info = {}
    try:
        import torch

        p = torch.cuda.get_device_properties(0)
        info["torch"] = {"name": p.name, "multi_processor_count": p.multi_processor_count,
                         "total_memory": p.total_memory, "major": p.major, "minor": p.minor}
    except Exception as e:  # noqa: BLE001 - a capture script reports what it could not read
        info["torch_error"] = str(e)
    try:
        q = "name,clocks.max.sm,clocks.max.mem,clocks.sm,clocks.mem"
        info["nvidia_smi"] = subprocess.run(["nvidia-smi", "--query-gpu=" + q, "--format=csv"],
                                            stdout=subprocess.PIPE, universal_newlines=True).stdout
    except OSError as e:
        info["nvidia_smi_error"] = str(e)
    return info


def capture(name, out_dir, ncu):
    task, cand = CASES[name]
    req = {"task_file": os.path.join(ROOT, task), "candidate_file": os.path.join(ROOT, cand), "seed": 42,
           "scratch_dir": out_dir}
    t0 = time.time()
    out, err, timed_out = profile._run_ncu(ncu, profile.METRICS, req, profile.MAX_LAUNCHES, profile.TIMEOUT_S)
    seconds = time.time() - t0
    with open(os.path.join(out_dir, "ncu_%s.csv" % name), "w") as f:
        f.write(out)
    with open(os.path.join(out_dir, "ncu_%s.err" % name), "w") as f:
        f.write(err)
    result = {"case": name, "task": task, "candidate": cand, "seconds": seconds, "timed_out": timed_out}
    try:
        result["profile"] = profile.parse_ncu_csv(out, profile.PROFILE_CALLS, profile.MAX_LAUNCHES)
        result["profile"]["profile_seconds"] = seconds
    except ValueError as e:
        result["error"] = str(e)
    with open(os.path.join(out_dir, "profile_%s.json" % name), "w") as f:
        json.dump(result, f, indent=1, sort_keys=True)
    print("%-16s %6.1f s  %s" % (name, seconds, "timed out" if timed_out else result.get("error", "ok")), flush=True)


def eval_profiled(name, out_dir):
    task, cand = CASES[name]
    cmd = [sys.executable, os.path.join(ROOT, "core", "eval", "worker", "kwb_worker.py"), "eval",
           os.path.join(ROOT, task), os.path.join(ROOT, cand), "--device", "cuda", "--profile", "--json",
           "--trials", "2", "--repeat", "5"]
    t0 = time.time()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, cwd=out_dir)
    with open(os.path.join(out_dir, "eval_%s.json" % name), "w") as f:
        f.write(p.stdout)
    with open(os.path.join(out_dir, "eval_%s.err" % name), "w") as f:
        f.write(p.stderr[-20000:])
    print("eval %-11s %6.1f s  rc %d" % (name, time.time() - t0, p.returncode), flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.environ.get("OUT") or "profile_capture")
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--eval", default="")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    out_dir = os.path.abspath(args.out)
    with open(os.path.join(out_dir, "device.json"), "w") as f:
        json.dump(device_info(), f, indent=1)
    ncu = profile.find_ncu()
    if ncu is None:
        print("SKIP: ncu not found")
        return 0
    for name in filter(None, args.eval.split(",")):
        eval_profiled(name, out_dir)
    for name in filter(None, args.cases.split(",")):
        capture(name, out_dir, ncu)
    return 0


if __name__ == "__main__":
    sys.exit(main())
