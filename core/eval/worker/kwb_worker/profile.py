# SPDX-License-Identifier: MIT
"""Nsight Compute profiling of a candidate, in a child process (`kwb_worker.py profile-target`).

The child builds the model, calls forward once outside the measured range (JIT, lazy init), then
`PROFILE_CALLS` times inside the NVTX range "kwb_candidate"; ncu measures only that range.

Keys of the profile dict (all per forward call):
  kernel_launches        kernels launched by one forward
  kernels_distinct       distinct kernel names
  gpu_time_ms            sum of kernel durations
  max_kernel_ms          longest single kernel
  achieved_occupancy_pct achieved occupancy, duration-weighted mean over kernels
  sm_throughput_pct      SM throughput, % of peak, duration-weighted mean
  dram_throughput_pct    DRAM throughput, % of peak, duration-weighted mean
  registers_per_thread   maximum over kernels
  local_memory_bytes     local-memory (register spill) load + store bytes
"""
import csv
import io
import os
import shutil
import subprocess
import sys

PROFILE_CALLS = 3
NVTX_RANGE = "kwb_candidate"
METRICS = {
    "gpu__time_duration.sum": "duration_ns",
    "sm__warps_active.avg.pct_of_peak_sustained_active": "occupancy",
    "sm__throughput.avg.pct_of_peak_sustained_elapsed": "sm",
    "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed": "mem",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed": "dram",
    "launch__registers_per_thread": "regs",
    "l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum": "local_ld",
    "l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum": "local_st",
}


def find_ncu():
    return shutil.which("ncu") or next((p for p in ("/usr/local/cuda/bin/ncu",) if os.path.exists(p)), None)


def _number(text):
    text = (text or "").replace(",", "").strip()
    try:
        return float(text)
    except ValueError:
        return None


def parse_ncu_csv(text, calls=PROFILE_CALLS):
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

    def weighted(key):
        vals = [(k.get(key), d) for k, d in zip(ks, dur) if k.get(key) is not None]
        if not vals:
            return None
        w = sum(d for _, d in vals)
        return sum(v * d for v, d in vals) / w if w > 0 else sum(v for v, _ in vals) / len(vals)

    local = sum((k.get("local_ld") or 0.0) + (k.get("local_st") or 0.0) for k in ks)
    out = {
        "kernel_launches": len(ks) / float(calls),
        "kernels_distinct": float(len({k["name"] for k in ks})),
        "gpu_time_ms": total / 1e6 / calls,
        "max_kernel_ms": max(dur) / 1e6,
        "achieved_occupancy_pct": weighted("occupancy"),
        "sm_throughput_pct": weighted("sm"),
        "dram_throughput_pct": weighted("dram"),
        "registers_per_thread": max((k.get("regs") or 0.0) for k in ks),
        "local_memory_bytes": local / calls,
    }
    return {k: v for k, v in out.items() if v is not None}


def profile_candidate(req, on_gpu, timeout=300):
    """Returns (profile dict, note). The note says "not profiled: ..." when nothing was measured."""
    if not on_gpu:
        return {}, "not profiled: no GPU"
    ncu = find_ncu()
    if ncu is None:
        return {}, "not profiled: ncu not found (install Nsight Compute or add it to PATH)"
    script = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "kwb_worker.py")
    cmd = [ncu, "--csv", "--print-units", "base", "--target-processes", "all",
           "--nvtx", "--nvtx-include", NVTX_RANGE + "/", "--metrics", ",".join(METRICS),
           sys.executable, script, "profile-target", req["task_file"], req["candidate_file"],
           "--seed", str(int(req.get("seed", 42))), "--calls", str(PROFILE_CALLS)]
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                           timeout=timeout, cwd=req.get("scratch_dir") or None)
    except subprocess.TimeoutExpired:
        return {}, "not profiled: ncu failed: timed out after %d s" % timeout
    sys.stderr.write(p.stderr[-4000:])
    try:
        prof = parse_ncu_csv(p.stdout)
    except ValueError as e:
        err = next((l.strip() for l in (p.stderr + "\n" + p.stdout).splitlines()
                    if "ERR" in l or "rror" in l), str(e))
        return {}, "not profiled: ncu failed: %s" % err[:300]
    return prof, ""


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
