# SPDX-License-Identifier: MIT
"""What the GPU check and the KernelBench sweep share: evaluations through pre-started workers (the next
worker imports torch and starts its runner while the current evaluation runs: no interpreter start per
task), the honest self-candidate of a task, the device's memory in use, flags and speedups.

Runs on a CPU too (device "cpu"), for a smoke test of the scripts themselves.
"""
import json
import os
import re
import subprocess
import sys
import threading
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "core", "eval", "worker"))

from kwb_worker import PROTOCOL_VERSION  # noqa: E402
from kwb_worker.host import run_request, start_worker  # noqa: E402


def own_code(src):
    """A task's own code as a candidate: `Model` renamed `ModelNew` (an honest copy)."""
    src = re.sub(r"\bclass Model\b", "class ModelNew", src)
    return re.sub(r"super\(\s*Model\s*,", "super(ModelNew,", src)


def write_own_code(task, folder):
    name = "own_%s" % os.path.basename(task)
    path = os.path.join(folder, name)
    with open(task) as f, open(path, "w") as g:
        g.write(own_code(f.read()))
    return path


def flags(r):
    """The integrity checks that keep a candidate from becoming best (yes, error or critical)."""
    return [v["detector"] for v in r.get("runtime_checks", []) if v["outcome"] == "yes"
            and v["severity"] in ("error", "critical")]


def speedup(r, base):
    b, c = r.get(base) or {}, r.get("candidate") or {}
    return b["median_ms"] / c["median_ms"] if b.get("samples") and c.get("median_ms") else float("nan")


def gpu_used_mib():
    try:
        # The GPU this process was given (CUDA_VISIBLE_DEVICES=I, one job a GPU: tests/gpu/parallel.sh), else the first.
        which = (os.environ.get("CUDA_VISIBLE_DEVICES") or "0").split(",")[0]
        out = subprocess.run(["nvidia-smi", "-i", which, "--query-gpu=memory.used", "--format=csv,noheader,nounits"],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, timeout=10).stdout
        return int(out.split()[0])
    except (OSError, ValueError, IndexError, subprocess.TimeoutExpired):
        return -1


class PeakSampler(threading.Thread):
    """The device's memory in use, sampled every KWB_PEAK_INTERVAL_S seconds (default 0.5; judge, runners and
    candidate together). Each sample is an nvidia-smi run, which takes the driver's lock: sampled every 50 ms it
    disturbed the launch-bound timings of an evaluation on the host's other GPU."""

    def __init__(self):
        super().__init__(daemon=True)
        self.peak, self.stop = 0, False
        self.interval = float(os.environ.get("KWB_PEAK_INTERVAL_S", "0.5"))

    def run(self):
        while not self.stop:
            self.peak = max(self.peak, gpu_used_mib())
            time.sleep(self.interval)


class Evaluations:
    """One evaluation at a time (one GPU), the next worker always started ahead."""

    def __init__(self, device="cuda", prestart=True):
        self.m_device = device
        self.m_prestart = prestart
        self.m_next = start_worker() if prestart else None
        self.m_count = 0

    def evaluate(self, task, cand, timeout=300.0, **opts):
        """The result dict of `kwb_worker.py eval TASK CAND` (statuses for timeouts and crashes as the CLI
        gives them), with `_wall` (seconds) added."""
        self.m_count += 1
        req = {"v": PROTOCOL_VERSION, "id": "g%d" % self.m_count, "op": "eval", "task_file": os.path.abspath(task),
               "candidate_file": os.path.abspath(cand), "device": self.m_device, "trials": 5, "atol": 1e-4,
               "rtol": 1e-4, "baselines": True, "graph_baseline": True, "profile": False, "integrity": True,
               "plausible_speedup": 10.0, "seed": 42, "scratch_dir": os.path.dirname(os.path.abspath(cand))}
        req.update(opts)
        worker, self.m_next = self.m_next, None
        t0 = time.time()
        ready = []

        def seen(ev):  # the worker's "ready": torch imported, the GPU found (the product hides this behind
            if ev.get("event") == "ready" and not ready:  # the LLM's answer: Evaluator::prestart)
                ready.append(time.time())

        try:
            final, log_tail = run_request(req, timeout, timeout, worker=worker, on_event=seen)
        finally:
            if self.m_prestart:
                self.m_next = start_worker()
        r = final.get("result") or {"status": "error", "reason": final.get("message", "no result")}
        r.setdefault("runtime_checks", [])
        r["_wall"] = time.time() - t0
        r["_start"] = (ready[0] - t0) if ready else float("nan")  # of _wall, the worker's start
        r["_log"] = log_tail if isinstance(log_tail, str) else ""
        return r

    def close(self):
        if self.m_next is not None:
            try:
                self.m_next.kill()
                self.m_next.wait(timeout=5)
            except Exception:
                pass
            self.m_next = None


def old_worker_eval(old_script, task, cand, timeout=300.0):
    """The pre-judge single-process worker (a checkout of e2c0642's core/eval/worker), through its own CLI."""
    t0 = time.time()
    try:
        p = subprocess.run([sys.executable, old_script, "eval", task, cand, "--device", "cuda", "--json"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=timeout)
        r = json.loads(p.stdout.strip().splitlines()[-1])
    except subprocess.TimeoutExpired:
        r = {"status": "timeout", "reason": "over %.0f s" % timeout}
    except (ValueError, IndexError):
        r = {"status": "no_result", "reason": (p.stderr or "")[-300:].replace("\n", " ")}
    r.setdefault("runtime_checks", [])
    r["_wall"] = time.time() - t0
    return r


def git_commit():
    try:
        return subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True).stdout.strip() or "unknown"
    except OSError:
        return "unknown"
