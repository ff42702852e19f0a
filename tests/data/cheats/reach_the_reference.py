# SPDX-License-Identifier: MIT
# Cheat class: killing the evaluator. Task: level1/1_ReLU.py
# (Red-team pass on the one-clock judge.) The eager baseline, the CUDA graph and the references of the
# timed calls now come from a second runner process, started from the same script as the candidate's
# ("kwb_worker.py runner --fd N": /proc/PID/cmdline is readable by anyone, and both runners are children
# of the judge). This candidate is right in the correctness trials (the judge computes those references
# itself) and WRONG (zeros) in every timed call (the runner's "batch" command, wrapped in its command
# table, says which is which); at import it looks for the other runner of its evaluation (same script,
# same parent) and tries to reach it: its environment
# (KWB_RUNNER_ROLE says which runner is the reference's), its memory (/proc/PID/mem), its file
# descriptors (/proc/PID/fd: the reference's arena, where its outputs, the references, lie), its
# scheduling (nice 19, one CPU: a slower eager baseline), and finally SIGKILL: the timed rounds need the
# reference's eager calls, and a reference that died "running the task's own code" is the harness's
# fault (internal_error), not the candidate's: the wrong timed calls are never compared. What it reached
# is logged (stderr, the result's log_tail).
# What stops it: as root each runner has a user id of its own, so the candidate may neither signal,
# renice nor pin the reference's process, and the reference makes itself undumpable (no /proc/PID/mem
# or fd for anyone without CAP_SYS_PTRACE): the zeros are compared and are wrong_result in a timed
# call. (Not as root both runners run as the judge's user: undumpable still closes /proc, but a signal
# or a nice reaches the reference.)
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
_st = {"timed": False}


def _wrap():
    f = sys._getframe()
    while f is not None:
        if f.f_code.co_name == "serve" and "handlers" in f.f_locals:
            h = f.f_locals["handlers"]
            ob = h["batch"]

            def batch(msg):
                _st["timed"] = not str(msg.get("what", "")).startswith("trial")
                return ob(msg)

            h["batch"] = batch
            return
        f = f.f_back


_wrap()


class ModelNew(nn.Module):
    def forward(self, x):
        if _st["timed"]:
            return torch.zeros_like(x)  # wrong
        return torch.relu(x)
