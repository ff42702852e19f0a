# SPDX-License-Identifier: MIT
"""Cancelling is cancelling: SIGTERM, SIGINT or the death of the process that started an evaluation ends
the judge and the candidate's runner (and whatever the candidate started) within 2 s, from the one-shot
CLI and from `serve`. Real hanging candidates, real signals, real process tables."""
import os
import signal
import subprocess
import time

import pytest

from conftest import PYTHON, WORKER, ServeWorker, cand, eval_request, task

HANG = cand("relu_hang.py")  # its second call spins forever: the evaluation is in "running" then


def _ours(marker):
    """Pids of processes whose command line holds `marker` (the worker script or the runner)."""
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit() and int(name) != os.getpid():
            try:
                with open("/proc/%s/cmdline" % name, "rb") as f:
                    cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if marker in cmd:
                found.append(int(name))
    return found


def _gone_within(pids, seconds):
    deadline = time.time() + seconds
    while time.time() < deadline:
        alive = [p for p in pids if os.path.exists("/proc/%d" % p) and _state(p) != "Z"]
        if not alive:
            return True, time.time() - (deadline - seconds)
        time.sleep(0.02)
    return False, seconds


def _state(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "Z"


def _children(pid):
    out = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open("/proc/%s/stat" % name) as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                        out.append(int(name))
            except (OSError, IndexError, ValueError):
                pass
    return out


def _tree(pid):
    todo, seen = [pid], []
    while todo:
        p = todo.pop()
        seen.append(p)
        todo.extend(_children(p))
    return seen


def _wait_running(proc, pids_fn, seconds=60):
    """Until the hanging candidate's runner exists and spins (the evaluation is in its timed calls)."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        pids = pids_fn()
        if len(pids) >= 2:
            time.sleep(1.0)  # into the spinning call
            return pids_fn()
        time.sleep(0.1)
    pytest.fail("the evaluation never started its runner")


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_cli_signal_ends_judge_and_runner(torch_python, sig):
    p = subprocess.Popen([PYTHON, WORKER, "eval", task("level1/1_ReLU.py"), HANG, "--device", "cpu", "--json"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        pids = _wait_running(p, lambda: [x for x in _tree(p.pid) if x != p.pid])
        p.send_signal(sig)
        ok, took = _gone_within(pids + [p.pid], 2.0)
        assert ok, "still alive 2 s after %s: %s" % (sig.name, [x for x in pids if os.path.exists("/proc/%d" % x)])
    finally:
        p.kill()
        p.wait()


def test_cli_killed_outright_takes_its_worker_along(torch_python):
    p = subprocess.Popen([PYTHON, WORKER, "eval", task("level1/1_ReLU.py"), HANG, "--device", "cpu", "--json"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        pids = _wait_running(p, lambda: [x for x in _tree(p.pid) if x != p.pid])
        p.kill()  # no handler runs: the worker's PDEATHSIG and the judge's watchdog must do it
        p.wait()
        ok, _ = _gone_within(pids, 2.0)
        assert ok, "still alive 2 s after the CLI was killed: %s" % pids
    finally:
        p.kill()


def test_serve_sigterm_ends_its_runner(torch_python):
    w = ServeWorker()
    try:
        ready = w.next_event()
        assert ready and ready["event"] == "ready", ready
        w.send(eval_request(task("level1/1_ReLU.py"), HANG, repeat=50))
        pids = _wait_running(w.proc, lambda: _tree(w.proc.pid))
        w.proc.send_signal(signal.SIGTERM)
        ok, _ = _gone_within(pids, 2.0)
        assert ok, "still alive 2 s after SIGTERM to serve: %s" % pids
        assert w.proc.wait(timeout=2) == 128 + signal.SIGTERM
    finally:
        w.kill()
