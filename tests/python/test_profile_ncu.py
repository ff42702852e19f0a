# SPDX-License-Identifier: MIT
"""kwb_worker.profile: the real ncu CSVs captured on the H100 (tests/data/profile), and the cost
controls around ncu (launch bound, NVTX range, time limit with the process group killed, fallback
when the roofline metrics are refused) driven through a stand-in `ncu` executable on PATH."""
import os
import stat
import sys
import time

import pytest

from conftest import DATA, WORKER_DIR

sys.path.insert(0, WORKER_DIR)
from kwb_worker import profile  # noqa: E402

CAPTURES = os.path.join(DATA, "profile")


def read(name):
    with open(os.path.join(CAPTURES, "ncu_%s.csv" % name)) as f:
        return f.read()


def test_seed_capture_hits_the_launch_bound():
    p = profile.parse_ncu_csv(read("gru39_seed"), calls=1, max_launches=64)
    assert p["launch_bound_reached"] == 1.0 and p["kernel_launches"] == 64.0 and p["kernels_distinct"] == 1.0
    assert p["dram_peak_bytes_per_cycle"] == 1280.0 and p["fp32_peak_fma_per_cycle"] == 16896.0
    assert 2.5e9 < p["dram_cycles_per_second"] < 2.7e9 and 1.0e9 < p["sm_cycles_per_second"] < 2.0e9
    assert p["fp64_fma"] == 0.0 and p["fp32_fma"] > 0


def test_showcase_capture_is_one_whole_forward():
    p = profile.parse_ncu_csv(read("gru39_showcase"), calls=1, max_launches=64)
    assert p["launch_bound_reached"] == 0.0 and p["kernel_launches"] == 2.0
    assert p["registers_per_thread"] == 254.0 and p["local_memory_bytes"] == 0.0
    assert 1.9 < p["gpu_time_ms"] < 2.2  # the cluster kernel plus a fill


def fake_ncu(tmp_path, monkeypatch, body):
    """Puts an executable `ncu` first on PATH; it records its arguments in argv.txt."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    script = bindir / "ncu"
    script.write_text("#!/bin/sh\necho \"$@\" > %s/argv.txt\n%s\n" % (tmp_path, body))
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", "%s:%s" % (bindir, os.environ.get("PATH", "")))
    return {"task_file": "task.py", "candidate_file": "cand.py", "scratch_dir": str(tmp_path)}


def test_bounded_command_and_seconds(tmp_path, monkeypatch):
    req = fake_ncu(tmp_path, monkeypatch, "cat %s" % os.path.join(CAPTURES, "ncu_gru39_seed.csv"))
    prof, note = profile.profile_candidate(req, on_gpu=True)
    argv = (tmp_path / "argv.txt").read_text()
    assert "--launch-count %d" % profile.MAX_LAUNCHES in argv and "--nvtx-include kwb_candidate/" in argv
    assert "dram__bytes.sum.peak_sustained" in argv and "profile-target task.py cand.py" in argv
    assert note.startswith("profiled the first 64 kernel launches of one forward")
    assert prof["launch_bound_reached"] == 1.0 and 0 <= prof["profile_seconds"] < 30


def test_time_limit_kills_the_whole_group(tmp_path, monkeypatch):
    # The stand-in starts a child that would outlive it (as the profiled python does) and waits.
    req = fake_ncu(tmp_path, monkeypatch, "sleep 60 & echo $! > %s/child.pid\nwait" % tmp_path)
    t0 = time.time()
    prof, note = profile.profile_candidate(req, on_gpu=True, timeout=1)
    assert time.time() - t0 < 20
    assert prof == {}
    assert note.startswith("not profiled: the profile hit its time limit of 1 s")
    pid = int((tmp_path / "child.pid").read_text())
    for _ in range(100):  # the kill is delivered; the zombie is reaped by init
        try:
            os.kill(pid, 0)
        except OSError:
            break
        with open("/proc/%d/stat" % pid) as f:
            if f.read().split(") ")[1].startswith("Z"):
                break
        time.sleep(0.05)
    else:
        pytest.fail("the profiled child survived the time limit")


def test_refused_roofline_metrics_fall_back_to_the_base_set(tmp_path, monkeypatch):
    body = ('case "$*" in *dram__bytes.sum*) echo "==ERROR== Failed to find metric dram__bytes.sum" >&2;;\n'
            '*) cat %s;; esac' % os.path.join(CAPTURES, "ncu_relu1_triton.csv"))
    req = fake_ncu(tmp_path, monkeypatch, body)
    prof, note = profile.profile_candidate(req, on_gpu=True)
    assert note.startswith("roofline metrics unavailable (==ERROR== Failed to find metric dram__bytes.sum)")
    assert prof["kernel_launches"] == 1.0 and "profile_seconds" in prof


def test_ncu_missing_and_failing(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(profile.os.path, "exists", lambda p: False)
    assert profile.profile_candidate({"task_file": "t", "candidate_file": "c"}, on_gpu=True)[1].startswith(
        "not profiled: ncu not found")
    monkeypatch.undo()
    req = fake_ncu(tmp_path, monkeypatch, 'echo "==ERROR== the profiler could not start" >&2; exit 1')
    assert profile.profile_candidate(req, on_gpu=True) == ({}, "not profiled: ncu failed: ==ERROR== the profiler could not start")
