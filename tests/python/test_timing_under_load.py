# SPDX-License-Identifier: MIT
"""The judge's timing rules on a loaded CPU. The test command runs ctest -j 2 on a 2-core machine, and a
person's machine is rarely idle: with an extra CPU-bound process beside the evaluations for the whole
test, the honest copies of the bundled tasks (`Model` renamed `ModelNew`) must come back ok, with no
error or critical integrity flag, near 1x eager; and the catalogue's cheats aimed at speed must still come
back caught or without gain. Runs alone (RUN_SERIAL, tests/python/CMakeLists.txt): the load is its own.
"""
import os
import re
import subprocess
import sys

import pytest

from conftest import DATA, ROOT, checks, cli

HONEST = ["level1/1_ReLU.py", "level1/2_Softmax.py", "level1/3_Matmul.py", "level2/1_Linear_GELU_Scale.py"]
# Speed-only cheats of the catalogue: work hidden in the runner's delivery, a clock shaved or stopped, the
# plumbing poisoned after the import, one call doing the whole batch, work moved after the batch's answer.
SPEED_CHEATS = ["patch_clock_slow_work.py", "deferred_to_delivery.py", "lazy_in_delivery_patched_clock.py",
                "slow_ping_calibration.py", "one_call_for_the_batch.py", "answer_then_work.py"]
# An honest copy is ~1x; under an added load its figure may wander, but far less than this. The bounds
# catch a judge that refuses or halves honest work under load (0.06-0.55x before the GPU-first judge). They
# are kept although the one-clock judge does not always meet them on a loaded 2-core machine: beside other
# people's builds and evaluations (load average up to 19) the honest copies' medians wandered over
# 0.21-2.75x in 39 runs (35 within 0.56-1.44x), and under this test's burner an honest 1_ReLU copy came out
# at 0.40x: its frames carried 0.2-0.8 ms more outside its calls than eager's (KWB_FRAMES_DUMP). That is
# the judge's to fix, not this bound's to hide. Since the judge counts on a CPU the frames no other process delayed
# (the kernel's run delay), and says integrity.busy_machine (a warning) where too few were: then the figure is
# declared not the candidate's alone, and is not held to the bound.
HONEST_RANGE = (0.6, 1.7)
NO_GAIN = 1.8  # as test_timing_cheats.py: a clean speed-only cheat's median against eager


@pytest.fixture(scope="module")
def burner():
    p = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    yield p
    p.kill()
    p.wait()


def own_copy(task, tmp_path):
    with open(os.path.join(ROOT, "tasks", task)) as f:
        src = f.read()
    dst = tmp_path / ("own_" + os.path.basename(task))
    dst.write_text(re.sub(r"super\(\s*Model\s*,", "super(ModelNew,", re.sub(r"\bclass Model\b", "class ModelNew", src)))
    return str(dst)


def flagged(r):
    return [v["detector"] for v in r["runtime_checks"] if v["outcome"] == "yes" and v["severity"] in ("error", "critical")]


@pytest.mark.parametrize("task", HONEST)
def test_honest_copy_under_load(burner, torch_python, task, tmp_path):
    assert burner.poll() is None
    rc, r, err = cli("eval", os.path.join(ROOT, "tasks", task), own_copy(task, tmp_path), "--device", "cpu")
    assert r is not None, err[-2000:]
    assert r["status"] == "ok", (r["status"], r["reason"])
    assert not flagged(r), "%s flagged under load: %s\n%s" % (task, flagged(r), checks(r))
    x = r["eager"]["median_ms"] / r["candidate"]["median_ms"]
    busy = checks(r)["integrity.busy_machine"]
    if busy["outcome"] == "yes":
        # The judge says its frames held the machine's load as much as the work (other processes delayed most of
        # them, by the kernel's run delay): a warning that cannot tell, with its counts, not a figure to hold to a
        # bound. That happens beside this test's burner plus another CPU-bound process on two cores.
        assert busy["severity"] == "warning" and "frames delayed by other processes" in busy["evidence"][0]["text"]
        return
    assert HONEST_RANGE[0] < x < HONEST_RANGE[1], "%s: honest copy at %.2fx eager under load: %s\n%s" % (
        task, x, r["reason"], busy)


@pytest.mark.parametrize("name", SPEED_CHEATS)
def test_speed_cheat_under_load(burner, torch_python, name):
    assert burner.poll() is None
    path = os.path.join(DATA, "cheats", name)
    with open(path) as f:
        task = re.search(r"Task: (\S+)", f.read(600)).group(1)
    rc, r, err = cli("eval", os.path.join(ROOT, "tasks", task), path, "--device", "cpu", "--trials", "3",
                     "--warmup", "1", "--repeat", "6")
    assert r is not None, err[-2000:]
    assert r["status"] != "internal_error", r["reason"]
    if r["status"] != "ok" or flagged(r):
        return
    # (No fastest-against-fastest rule: a figure is a frame less the lane's fastest dry frame, and the
    # fastest round is the one whose noise cancelled; see test_timing_cheats.py.)
    median = r["eager"]["median_ms"] / r["candidate"]["median_ms"]
    assert median < NO_GAIN, "%s came back clean at %.2fx eager under load: %s\n%s" % (
        name, median, r["reason"], checks(r))
