#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Builds the showcase kernels' CUDA extensions (trusted kernels of ours) into $TORCH_EXTENSIONS_DIR, one
process per task, in parallel: the GPU check starts it in the background so the showcase evaluations
load a build instead of spending a minute each in nvcc. Each process runs one forward of its task on
the GPU (that is what triggers the build). The folder is made writable for the runner's user id.

Usage: TORCH_EXTENSIONS_DIR=DIR prebuild_showcase.py
"""
import os
import subprocess
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "resources", "showcase"))
from make_showcase import candidate as showcase_candidate  # noqa: E402  (generated from the sources, not committed)
TASKS = ["39_GRU", "40_GRUHidden", "41_GRUBidirectional", "42_GRUBidirectionalHidden", "37_LSTMCn", "36_LSTMHn",
         "35_LSTM", "38_LSTMBidirectional"]
ONE = r"""
import importlib.util, sys, torch
def load(p, n):
    s = importlib.util.spec_from_file_location(n, p); m = importlib.util.module_from_spec(s); sys.modules[n] = m
    s.loader.exec_module(m); return m
t, c = load(sys.argv[1], "task"), load(sys.argv[2], "cand")
m = c.ModelNew(*t.get_init_inputs()).cuda()
with torch.no_grad():
    m(*[x.cuda() if isinstance(x, torch.Tensor) else x for x in t.get_inputs()])
torch.cuda.synchronize()
"""


def main():
    d = os.environ.get("TORCH_EXTENSIONS_DIR")
    if not d:
        sys.exit("set TORCH_EXTENSIONS_DIR")
    os.makedirs(d, exist_ok=True)
    t0 = time.time()
    procs = [subprocess.Popen([sys.executable, "-c", ONE, os.path.join(ROOT, "tasks", "level3", t + ".py"),
                               showcase_candidate(t)]) for t in TASKS]
    codes = [p.wait() for p in procs]
    subprocess.run(["chmod", "-R", "a+rwX", d])
    print("prebuild: %d/%d showcase tasks built and ran in %.0f s" % (codes.count(0), len(codes), time.time() - t0),
          flush=True)


if __name__ == "__main__":
    main()
