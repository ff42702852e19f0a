# SPDX-License-Identifier: MIT
"""GPU check of the showcase candidates (generated from resources/showcase/ by make_showcase.py): for every task, at a small
size (2 layers, 16 steps) and at the task's size, on fresh random inputs, the candidate matches
the strict-fp32 reference (TF32 off) at atol = rtol = 1e-4, gives bit-identical results on a
repeat (a moving result is a race), and every inter-program barrier counter ends at its target.

Run on the GPU machine:  python3 tests/gpu/showcase_correctness.py [--tasks 39,40]
(or with pytest). Exits 0 when all pass, 1 otherwise; skips with a message without CUDA."""
import importlib.util
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location(
    "showcase_bench", os.path.join(os.path.dirname(HERE), "bench", "showcase_bench.py"))
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)


def check_task(task, full=True):
    """Returns a list of failure strings (empty when the task passes)."""
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    task_mod = bench.load_module(os.path.join(bench.ROOT, "tasks", "level3", task + ".py"), "t_" + task[:2])
    cand_mod = bench.load_module(bench.showcase_candidate(task), "c_" + task[:2])
    fails = []
    for small in ([True, False] if full else [True]):
        r = bench.correctness(task, task_mod, cand_mod, small, 2)
        tag = "%s %s" % (task, "small" if small else "full")
        if not r["allclose"]:
            fails.append("%s: not allclose at 1e-4 (max err %.3g)" % (tag, r["max_err_fp32"]))
        if not r["deterministic"]:
            fails.append("%s: result moves between identical runs (race)" % tag)
        if not r["counters_ok"]:
            fails.append("%s: barrier counters did not reach their targets" % tag)
    return fails


def test_showcase_all():
    if not torch.cuda.is_available():
        import pytest
        pytest.skip("needs a CUDA GPU (run on the GPU machine)")
    fails = []
    for task in bench.TASKS:
        fails += check_task(task)
    assert not fails, "\n".join(fails)


def main(argv):
    if not torch.cuda.is_available():
        print("SKIP: showcase_correctness needs a CUDA GPU")
        return 0
    wanted = argv[argv.index("--tasks") + 1].split(",") if "--tasks" in argv else None
    fails = []
    for task in bench.TASKS:
        if wanted and task[:2] not in wanted:
            continue
        f = check_task(task)
        print("%-28s %s" % (task, "PASS" if not f else "FAIL\n  " + "\n  ".join(f)), flush=True)
        fails += f
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
