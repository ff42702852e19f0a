# SPDX-License-Identifier: MIT
"""The judge's copy of a candidate's outputs out of its process (kwb_worker/handoff.py), on a CPU: a real second
process holds the outputs, its Reporter says where they lie, and the judge's Fetcher reads them with
process_vm_readv into its arena. What the process reports is untrusted: an address it does not own is a crash,
outputs that do not fit where the reference's go are a shape mismatch. (The GPU path, CUDA IPC handles, runs on
the device machine: tests/gpu/judge_check.py.)"""
import json
import os
import subprocess
import sys

import pytest

from conftest import WORKER_DIR

torch = pytest.importorskip("torch")
sys.path.insert(0, WORKER_DIR)

from kwb_worker.arena import Arena  # noqa: E402
from kwb_worker.failures import Failure  # noqa: E402
from kwb_worker.handoff import Fetcher, Reporter  # noqa: E402

# The candidate's side: outputs of two calls (a tensor, a strided view, a value; then a tensor), reported by the
# runner's Reporter, kept alive until the judge is done.
HOLDER = r"""
import json, sys, torch
sys.path.insert(0, %r)
from kwb_worker.arena import Arena
from kwb_worker.handoff import Reporter
arena = Arena(1 << 16)
arena.m_bytes[:4096].view(torch.float32)[:] = 7.0
x = torch.arange(12, dtype=torch.float32).reshape(3, 4)
flats = [[x * 2, x.t(), 3], [torch.full((5,), -1.5, dtype=torch.float64), arena.view(256, torch.float32, (4,))]]
keep = []
outs, segs = Reporter(torch.device("cpu"), arena).report(flats, keep)
print(json.dumps({"outs": outs, "segs": segs}), flush=True)
sys.stdin.readline()
"""


@pytest.fixture
def holder():
    p = subprocess.Popen([sys.executable, "-c", HOLDER % WORKER_DIR], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        yield p, json.loads(p.stdout.readline())
    finally:
        p.stdin.close()
        p.wait(timeout=30)


def _fetcher(pid, size=1 << 16):
    arena = Arena(size)
    return arena, Fetcher(arena, torch.device("cpu"), pid)


def test_the_judge_reads_the_outputs_from_the_candidates_process(holder):
    p, rep = holder
    outs = rep["outs"]
    assert rep["segs"] == []  # a CPU has no allocations to open
    # One signature a distinct call, a place a tensor: an address, or -1 - an offset in the arena.
    assert outs["sigs"] == [[["float32", [3, 4]], ["float32", [4, 3]], ["=", 3]], [["float64", [5]], ["float32", [4]]]]
    assert [c[0] for c in outs["calls"]] == [0, 1] and outs["calls"][1][2] == -1 - 256 and outs["calls"][0][1] > 0
    arena, f = _fetcher(p.pid)
    # The outputs of an input's view (outs[1][1], at offset 256 of the candidate's arena) are read from the judge's
    # own arena, where that input lies: write what it would hold.
    arena.m_bytes[:4096].view(torch.float32)[:] = 7.0
    layouts = f.fetch(outs, [8192, 16384], [16384, 1 << 16])
    a, b = arena.read(layouts[0], 8192, 16384), arena.read(layouts[1], 16384, 1 << 16)
    x = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    assert torch.equal(a[0], x * 2) and torch.equal(a[1], x.t().contiguous()) and a[2] == 3
    assert torch.equal(b[0], torch.full((5,), -1.5, dtype=torch.float64)) and torch.equal(b[1], torch.full((4,), 7.0))
    assert [e["off"] for e in layouts[0][:2]] == [8192, 8192 + 256]  # one after the other, aligned


def test_an_address_the_process_does_not_own_is_a_crash(holder):
    p, rep = holder
    arena, f = _fetcher(p.pid)
    outs = json.loads(json.dumps(rep["outs"]))
    outs["calls"][0][1] = 4096  # the first page: never mapped
    with pytest.raises(Failure) as e:
        f.fetch(outs, [8192, 16384], [16384, 1 << 16])
    assert e.value.status == "crash" and "could not read" in e.value.reason
    outs["calls"][0][1] = "0x10"
    with pytest.raises(Failure) as e:
        f.fetch(outs, [8192, 16384], [16384, 1 << 16])
    assert e.value.status == "crash"


def test_outputs_that_do_not_fit_where_the_references_go_are_a_shape_mismatch(holder):
    p, rep = holder
    arena, f = _fetcher(p.pid)
    with pytest.raises(Failure) as e:
        f.fetch(rep["outs"], [8192, 16384], [8192 + 64, 1 << 16])  # 48 bytes for the first output, and 64 there
    assert e.value.status == "shape_mismatch"
    bad = json.loads(json.dumps(rep["outs"]))
    bad["sigs"][0][0][0] = "object"
    with pytest.raises(Failure) as e:
        f.fetch(bad, [8192, 16384], [16384, 1 << 16])
    assert e.value.status == "shape_mismatch"
    with pytest.raises(Failure) as e:
        f.fetch(dict(rep["outs"], calls=rep["outs"]["calls"][:1]), [8192, 16384], [16384, 1 << 16])  # one for two
    assert e.value.status == "crash"


@pytest.mark.skipif(os.geteuid() == 0, reason="as root the judge reads any process, undumpable or not")
def test_a_process_that_made_itself_unreadable_is_a_crash():
    code = HOLDER.replace("import json, sys, torch", "import ctypes, json, sys, torch\n"
                          "ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)")
    p = subprocess.Popen([sys.executable, "-c", code % WORKER_DIR], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        rep = json.loads(p.stdout.readline())
        arena, f = _fetcher(p.pid)
        with pytest.raises(Failure) as e:
            f.fetch(rep["outs"], [8192, 16384], [16384, 1 << 16])
        assert e.value.status == "crash" and "could not read" in e.value.reason
    finally:
        p.stdin.close()
        p.wait(timeout=30)
