# SPDX-License-Identifier: MIT
"""Nsight Compute profiling of a candidate, in a child process (`kwb_worker.py profile-target`).

The child builds the model, calls forward once outside the measured range (JIT, lazy init), then
`PROFILE_CALLS` times inside the NVTX range "kwb_candidate"; ncu measures only that range, and at
most `MAX_LAUNCHES` kernel launches of it (a naive recurrent kernel launches thousands per forward;
each is replayed once per metric pass). ncu gets `TIMEOUT_S` seconds; its whole process group is
killed when that passes.

Keys of the profile dict (per forward call when the launch bound was not reached; over the
profiled launches when it was):
  kernel_launches        kernels launched by one forward (profiled launches when the bound was hit)
  kernels_distinct       distinct kernel names
  gpu_time_ms            sum of kernel durations
  max_kernel_ms          longest single kernel
  achieved_occupancy_pct achieved occupancy, duration-weighted mean over kernels
  sm_throughput_pct      SM throughput, % of peak, duration-weighted mean
  dram_throughput_pct    DRAM throughput, % of peak, duration-weighted mean
  registers_per_thread   maximum over kernels
  local_memory_bytes     local-memory (register spill) load + store bytes
  dram_bytes             DRAM bytes read + written
  fp32_add, fp32_mul, fp32_fma, fp64_add, fp64_mul, fp64_fma
                         predicated-on thread instructions executed (FLOPs: add + mul + 2 fma)
  dram_peak_bytes_per_cycle, dram_cycles_per_second
                         the device's DRAM peak, as ncu reads it (peak bytes/s = their product)
  fp32_peak_fma_per_cycle, fp64_peak_fma_per_cycle, sm_cycles_per_second
                         the device's FMA peak per cycle and its SM clock during the profile
  launch_bound_reached   1 when ncu stopped at MAX_LAUNCHES (the forward launches more)
  profile_seconds        wall time of the whole profile (ncu, the child, the replays)
The roofline (achieved vs peak) is computed from these by the C++ core (core/model/profile.h).
"""
import csv
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import time

PROFILE_CALLS = 1
MAX_LAUNCHES = 64
TIMEOUT_S = 180
NVTX_RANGE = "kwb_candidate"
BASE_METRICS = {
    "gpu__time_duration.sum": "duration_ns",
    "sm__warps_active.avg.pct_of_peak_sustained_active": "occupancy",
    "sm__throughput.avg.pct_of_peak_sustained_elapsed": "sm",
    "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed": "mem",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed": "dram",
    "launch__registers_per_thread": "regs",
    "l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum": "local_ld",
    "l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum": "local_st",
}
# The inputs of Nsight Compute's own roofline chart (section SpeedOfLight_RooflineChart).
ROOFLINE_METRICS = {
    "dram__bytes.sum": "dram_bytes",
    "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum": "fp32_add",
    "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum": "fp32_mul",
    "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum": "fp32_fma",
    "smsp__sass_thread_inst_executed_op_dadd_pred_on.sum": "fp64_add",
    "smsp__sass_thread_inst_executed_op_dmul_pred_on.sum": "fp64_mul",
    "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum": "fp64_fma",
    "dram__bytes.sum.peak_sustained": "dram_peak_bytes_per_cycle",
    "dram__cycles_elapsed.avg.per_second": "dram_cycles_per_second",
    "sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained": "fp32_peak_fma_per_cycle",
    "sm__sass_thread_inst_executed_op_dfma_pred_on.sum.peak_sustained": "fp64_peak_fma_per_cycle",
    "smsp__cycles_elapsed.avg.per_second": "sm_cycles_per_second",
}
METRICS = dict(BASE_METRICS, **ROOFLINE_METRICS)
SUMMED = ("dram_bytes", "fp32_add", "fp32_mul", "fp32_fma", "fp64_add", "fp64_mul", "fp64_fma")
PEAKS = ("dram_peak_bytes_per_cycle", "fp32_peak_fma_per_cycle", "fp64_peak_fma_per_cycle")
CLOCKS = ("dram_cycles_per_second", "sm_cycles_per_second")


def find_ncu():
    return shutil.which("ncu") or next((p for p in ("/usr/local/cuda/bin/ncu",) if os.path.exists(p)), None)


def _number(text):
    text = (text or "").replace(",", "").strip()
    try:
        return float(text)
    except ValueError:
        return None


def parse_ncu_csv(text, calls=PROFILE_CALLS, max_launches=None):
    """Turns `ncu --csv --print-units base` output (details page) into the profile dict."""
    lines = text.splitlines()
    start = next((i for i, l in enumerate(lines) if l.startswith('"ID"')), None)
    if start is None:
        raise ValueError("no CSV table in ncu output")
    kernels = {}
    for row in csv.DictReader(io.StringIO("\n".join(lines[start:]))):
        key = METRICS.get(row.get("Metric Name", ""))
        if key is None:
            continue
        k = kernels.setdefault(row["ID"], {"name": row.get("Kernel Name", "")})
        k[key] = _number(row.get("Metric Value"))
    if not kernels:
        raise ValueError("ncu measured no kernel in the candidate's forward")
    ks = list(kernels.values())
    dur = [k.get("duration_ns") or 0.0 for k in ks]
    total = sum(dur)
    bound_hit = max_launches is not None and len(ks) >= max_launches
    # Past the bound, the profiled launches are a prefix of one forward: report them as they are.
    per = 1.0 if bound_hit else float(calls)

    def weighted(key):
        vals = [(k.get(key), d) for k, d in zip(ks, dur) if k.get(key) is not None]
        if not vals:
            return None
        w = sum(d for _, d in vals)
        return sum(v * d for v, d in vals) / w if w > 0 else sum(v for v, _ in vals) / len(vals)

    def summed(key):
        vals = [k[key] for k in ks if k.get(key) is not None]
        return sum(vals) / per if vals else None

    def largest(key):
        vals = [k[key] for k in ks if k.get(key) is not None]
        return max(vals) if vals else None

    local = sum((k.get("local_ld") or 0.0) + (k.get("local_st") or 0.0) for k in ks)
    out = {
        "kernel_launches": len(ks) / per,
        "kernels_distinct": float(len({k["name"] for k in ks})),
        "gpu_time_ms": total / 1e6 / per,
        "max_kernel_ms": max(dur) / 1e6,
        "achieved_occupancy_pct": weighted("occupancy"),
        "sm_throughput_pct": weighted("sm"),
        "dram_throughput_pct": weighted("dram"),
        "registers_per_thread": max((k.get("regs") or 0.0) for k in ks),
        "local_memory_bytes": local / per,
    }
    for key in SUMMED:
        out[key] = summed(key)
    for key in PEAKS:
        out[key] = largest(key)
    for key in CLOCKS:
        out[key] = weighted(key)
    if max_launches is not None:
        out["launch_bound_reached"] = 1.0 if bound_hit else 0.0
    return {k: v for k, v in out.items() if v is not None}


def _first_error(text, fallback):
    return next((l.strip() for l in text.splitlines() if "ERR" in l or "rror" in l), fallback)


def _run_ncu(ncu, metrics, req, max_launches, timeout):
    """Runs ncu in its own process group; returns (stdout, stderr, timed_out)."""
    script = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "kwb_worker.py")
    cmd = [ncu, "--csv", "--print-units", "base", "--target-processes", "all",
           "--nvtx", "--nvtx-include", NVTX_RANGE + "/", "--launch-count", str(max_launches),
           "--metrics", ",".join(metrics),
           sys.executable, script, "profile-target", req["task_file"], req["candidate_file"],
           "--seed", str(int(req.get("seed", 42))), "--calls", str(PROFILE_CALLS)]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                         cwd=req.get("scratch_dir") or None, start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
        return out, err, False
    except subprocess.TimeoutExpired:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except OSError:
            pass
        out, err = p.communicate()
        return out, err, True


def profile_candidate(req, on_gpu, timeout=None):
    """Returns (profile dict, note). The note says "not profiled: ..." when nothing was measured,
    and what was bounded when something was (the launch bound)."""
    if not on_gpu:
        return {}, "not profiled: no GPU"
    ncu = find_ncu()
    if ncu is None:
        return {}, "not profiled: ncu not found (install Nsight Compute or add it to PATH)"
    limit = float(timeout or req.get("profile_timeout_sec") or TIMEOUT_S)
    max_launches = max(1, int(req.get("profile_max_launches") or MAX_LAUNCHES))
    t0 = time.time()
    out, err, timed_out = _run_ncu(ncu, METRICS, req, max_launches, limit)
    note = ""
    if not timed_out and "error" in err.lower() and "metric" in err.lower() and '"ID"' not in out:
        # An older Nsight Compute (or another GPU) without the roofline metrics: the base set still tells a lot.
        note = "roofline metrics unavailable (%s)" % _first_error(err, "ncu refused them")[:200]
        out, err, timed_out = _run_ncu(ncu, BASE_METRICS, req, max_launches, max(1.0, limit - (time.time() - t0)))
    seconds = time.time() - t0
    sys.stderr.write(err[-4000:])
    if timed_out:
        return {}, ("not profiled: the profile hit its time limit of %d s (ncu replays each of up to %d kernel "
                    "launches once per metric pass; stopped)" % (limit, max_launches))
    try:
        prof = parse_ncu_csv(out, PROFILE_CALLS, max_launches)
    except ValueError as e:
        return {}, "not profiled: ncu failed: %s" % _first_error(err + "\n" + out, str(e))[:300]
    prof["profile_seconds"] = seconds
    if prof.get("launch_bound_reached"):
        bound = "profiled the first %d kernel launches of one forward (the bound; it launches more)" % max_launches
        note = "; ".join(n for n in (bound, note) if n)
    return prof, note


def profile_target(task_file, candidate_file, seed, calls):
    """Body of the `profile-target` mode, run under ncu."""
    import torch

    from .evaluate import flatten, strict_fp32, to_device
    from .loader import import_file, seed_all

    strict_fp32()
    device = torch.device("cuda")
    task = import_file(task_file, "task")
    seed_all(seed)
    init = list(task.get_init_inputs())
    mod = import_file(candidate_file, "candidate")
    seed_all(seed)
    model = mod.ModelNew(*init).to(device)
    seed_all(seed)
    inputs = [to_device(x, device) for x in task.get_inputs()]
    with torch.no_grad():
        flatten(model(*inputs))
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_push(NVTX_RANGE)
        for _ in range(calls):
            model(*inputs)
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_pop()
    return 0


def main(argv):
    """`python3 -m kwb_worker.profile parse FILE.csv [--calls N] [--max-launches N]`: the profile dict
    of a saved ncu CSV, as JSON (tests, and re-reading a capture made on the GPU machine)."""
    import argparse

    p = argparse.ArgumentParser(prog="kwb_worker.profile")
    sub = p.add_subparsers(dest="mode", required=True)
    a = sub.add_parser("parse")
    a.add_argument("csv")
    a.add_argument("--calls", type=int, default=PROFILE_CALLS)
    a.add_argument("--max-launches", type=int, default=None)
    args = p.parse_args(argv)
    with open(args.csv, encoding="utf-8", errors="replace") as f:
        text = f.read()
    try:
        prof = parse_ncu_csv(text, args.calls, args.max_launches)
    except ValueError as e:
        sys.stderr.write("kwb_worker.profile: %s\n" % e)
        return 1
    sys.stdout.write(json.dumps(prof, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
