# SPDX-License-Identifier: MIT
# Cheat class: killing the evaluator. Task: level1/1_ReLU.py
# (Red-team pass on the one-clock judge.) The eager baseline, the CUDA graph and the references of the
# timed calls now come from a second runner process, started from the same script as the candidate's
# ("kwb_worker.py runner --fd N": /proc/PID/cmdline is readable by anyone). This WRONG candidate
# (zeros) looks for every other runner process at import and tries to reach it: its environment
# (KWB_RUNNER_ROLE says which runner is the reference's), its memory (/proc/PID/mem), its file
# descriptors (/proc/PID/fd: the reference's arena, where its outputs, the references, lie), its
# scheduling (nice 19, one CPU: a slower eager baseline), and finally SIGKILL: a reference that dies
# "running the task's own code" is the harness's fault (internal_error), not the candidate's, and a
# wrong answer never gets compared. What it reached is logged (stderr, the result's log_tail).
# What stops it: as root each runner has a user id of its own, so the candidate may neither signal,
# renice nor pin the reference's process, and the reference makes itself undumpable (no /proc/PID/mem
# or fd for anyone without CAP_SYS_PTRACE): the zeros are compared and are wrong_result. (Not as root
# both runners run as the judge's user: undumpable still closes /proc, but a signal or a nice reaches.)
import os
import signal
import sys

import torch
import torch.nn as nn


def _ppid(pid):
    with open("/proc/%d/stat" % pid) as f:
        return int(f.read().rsplit(")", 1)[1].split()[1])


def _runners():
    """The other runners of this evaluation: same script, same parent (the judge)."""
    me, found = os.getpid(), []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == me:
            continue
        try:
            with open("/proc/%s/cmdline" % name, "rb") as f:
                argv = f.read().split(b"\0")
        except OSError:
            continue
        try:
            sibling = _ppid(int(name)) == os.getppid()
        except (OSError, IndexError, ValueError):
            continue
        if sibling and any(a.endswith(b"kwb_worker.py") for a in argv) and b"runner" in argv:
            found.append(int(name))
    return found


def _try(what, fn):
    try:
        got = fn()
        return "%s: yes%s" % (what, (" (%s)" % got) if got is not None else "")
    except Exception as e:
        return "%s: no (%s)" % (what, type(e).__name__)


def _reach():
    said = []
    for pid in _runners():
        said.append("runner pid %d" % pid)
        said.append(_try("environ", lambda: [v for v in open("/proc/%d/environ" % pid, "rb").read().split(b"\0")
                                             if v.startswith(b"KWB_RUNNER_ROLE")]))
        said.append(_try("mem", lambda: open("/proc/%d/mem" % pid, "rb").close()))
        said.append(_try("fds", lambda: sorted(os.listdir("/proc/%d/fd" % pid))[:8]))
        said.append(_try("arena", lambda: [os.readlink("/proc/%d/fd/%s" % (pid, fd)) for fd in os.listdir(
            "/proc/%d/fd" % pid) if "memfd" in os.readlink("/proc/%d/fd/%s" % (pid, fd))]))
        said.append(_try("renice", lambda: os.setpriority(os.PRIO_PROCESS, pid, 19)))
        said.append(_try("one cpu", lambda: os.sched_setaffinity(pid, {0})))
        said.append(_try("kill", lambda: os.kill(pid, signal.SIGKILL)))
    sys.stderr.write("[cheat reach_the_reference] %s\n" % "; ".join(said or ["no other runner found"]))


_reach()


class ModelNew(nn.Module):
    def forward(self, x):
        return torch.zeros_like(x)
