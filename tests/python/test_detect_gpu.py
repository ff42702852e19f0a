# SPDX-License-Identifier: MIT
"""triton_lint against the real Triton (GPU machine only; skips elsewhere): every corpus kernel
that the lint flags must fail to compile, and every kernel it passes must compile and run."""
import importlib.util
import json
import os
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "core", "eval", "worker"))

from kwb_worker.detect import run_detectors  # noqa: E402
from conftest import detect_task  # noqa: E402

try:
    import torch
    import triton  # noqa: F401

    GPU = torch.cuda.is_available()
except ImportError:
    GPU = False

# A per-test skip (not a module-level one): pytest then exits 0 on machines without a GPU.
pytestmark = pytest.mark.skipif(not GPU, reason="needs a CUDA GPU with torch and Triton")

DATA = os.path.join(ROOT, "tests", "data", "detect")
EXPECTED = json.load(open(os.path.join(DATA, "expected.json"), encoding="utf-8"))
# Files whose forward only launches the candidate's own Triton kernels (no cheats, no CUDA build).
FILES = sorted(f for f in EXPECTED["files"] if not f.startswith(("cheat_", "cuda_")))


def _load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("name", FILES)
def test_lint_matches_the_compiler(name):
    entry = EXPECTED["files"][name]
    task_path = detect_task(entry["task"])
    cand_path = os.path.join(DATA, "candidates", name)
    with open(task_path) as a, open(cand_path) as b:
        lint = next(v for v in run_detectors(a.read(), b.read()) if v["detector"] == "triton_lint")
    task = _load(task_path, "task_" + name[:-3])
    cand = _load(cand_path, "cand_" + name[:-3])
    torch.manual_seed(0)
    model = cand.ModelNew(*task.get_init_inputs()).cuda()
    inputs = [x.cuda() for x in task.get_inputs()]
    error = None
    try:
        with torch.no_grad():
            model(*inputs)
        torch.cuda.synchronize()
    except Exception as e:  # compile errors arrive as triton CompilationError or AttributeError
        error = "%s: %s" % (type(e).__name__, str(e).splitlines()[-1] if str(e) else "")
    print("%-32s lint=%-3s compiler=%s" % (name, lint["outcome"], error or "ok"))
    if lint["outcome"] == "yes":
        assert error is not None, "lint flagged %s but it compiled: %s" % (name, lint["evidence"])
    else:
        assert error is None, "lint passed %s but: %s" % (name, error)
