# SPDX-License-Identifier: MIT
"""Cheats of the catalogue that only bite when the judge is not root (the candidate's process then runs as
the judge's own user): run under an unprivileged user id (setpriv, as root; or as they are, when the tests
already run unprivileged), each on its header's task. "Caught" as in test_timing_cheats.py.

- hijack_the_watchdog.py takes over the judge's watchdog (a process of the judge's user the judge started
  and never stops or counts, and which is not undumpable) with ptrace and precomputes the timed calls'
  answers there, outside every frame;
- autogroup_the_reference.py lowers the priority of the judge's whole session (its autogroup's nice value,
  which no thread's nice shows) and leaves it with setsid(): the reference's runner is starved beside
  other work, the candidate is not;
- interrupt_the_reference.py, wrong in every timed call, sends the reference's runner SIGINT inside one of
  its frames: a failure the reference's lane blames on the harness (internal_error).
"""
import os
import shutil
import subprocess
import json

import pytest

from conftest import DATA, PYTHON, WORKER, checks
from test_timing_cheats import FAST, NO_GAIN, _caught, _header, task

NOBODY = 65534


def _unprivileged(args, timeout=300):
    """kwb_worker.py ARGS --json as an unprivileged user (from a world-writable folder)."""
    cmd = [PYTHON, WORKER] + list(args) + ["--json"]
    cwd = None
    if os.geteuid() == 0:
        if not shutil.which("setpriv"):
            pytest.skip("root, and no setpriv to drop to an unprivileged user")
        cwd = "/tmp/kwb-test-nobody"
        os.makedirs(cwd, exist_ok=True)
        os.chmod(cwd, 0o777)
        cmd = ["setpriv", "--reuid=%d" % NOBODY, "--regid=%d" % NOBODY, "--clear-groups", "env", "HOME=" + cwd] + cmd
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, timeout=timeout,
                       cwd=cwd)
    return (json.loads(p.stdout) if p.stdout.strip() else None), p.stderr


def _run(name):
    path = os.path.join(DATA, "cheats", name)
    return _unprivileged(["eval", task(_header(path)[1]), path] + FAST)


@pytest.mark.parametrize("name", ["hijack_the_watchdog.py", "autogroup_the_reference.py"])
def test_no_speed_from_the_judges_other_processes(torch_python, name):
    for attempt in range(2):  # once more when the first is over NO_GAIN: a load spike, or the cheat?
        r, err = _run(name)
        assert r is not None, err[-2000:]
        if _caught(r):
            return
        assert r["status"] == "ok", (r["status"], r["reason"])
        median = r["eager"]["median_ms"] / r["candidate"]["median_ms"]
        if median < NO_GAIN:
            return
    pytest.fail("%s came back clean at %.2fx eager (twice over %.1fx): %s\n%s"
                % (name, median, NO_GAIN, r["reason"], checks(r)))


def test_the_reference_cannot_be_made_to_blame_the_harness(torch_python):
    r, err = _run("interrupt_the_reference.py")
    assert r is not None, err[-2000:]
    assert r["status"] not in ("ok", "internal_error", "harness_out_of_memory"), (r["status"], r["reason"])
