# SPDX-License-Identifier: MIT
# Cheat class: slowing the baselines. Task: level1/1_ReLU.py
# Outcome: caught, or no faster than an honest copy.
# (Second red-team pass on the one-clock judge.) Not as root the candidate's process runs as the judge's
# user, like the reference's runner, and the judge checks that runner before each of its frames for what
# such a process could change: its threads' nice value and their CPUs. Not its scheduling policy:
# sched_setscheduler(2) on a process of the same user needs no privilege to lower it, and the reference
# being undumpable does not matter. At import this candidate puts every thread of the reference's runner
# (the other "runner --fd N" child of its parent; its threads listed in /proc/<pid>/task) under
# SCHED_IDLE (weight 3 against a normal thread's 1024: it runs only when nothing else on its core wants
# to; nice stays 0). On a quiet machine nothing changes; beside any other work on the runners' core (a
# neighbour's build, another evaluation, the judge) the reference's eager frames take far longer, while
# the candidate, a normal thread, does not. The candidate is an honest ReLU otherwise.
# Measured here: the policy takes (the report reads 5, SCHED_IDLE, on every thread of the reference, and
# an unprivileged judge could not even set it back: leaving SCHED_IDLE needs RLIMIT_NICE), yet nothing
# changed: the kernel's autogroups (one per session; the judge's host gives it a session of its own)
# weigh the judge's session as a whole against the other sessions' work, and a SCHED_IDLE thread yields
# only to threads of its own session (the judge, the candidate's runner, stopped). In one session, a
# process answering requests with 5 ms of work took 1477 ms a request beside a busy loop on its core.
# What stops it: autogroups, where the kernel has them; otherwise the baselines are never reported
# slower than their slowest clean round (timed before the import) and are compared with those
# (integrity.baseline_interference), so the gain is at most the clean rounds' spread. The policy itself
# goes unseen. (Fix: read the policy, /proc/<pid>/task/<tid>/stat field 41, or sched_getscheduler, in
# RunnerClient.tampered() with the nice value.)
import os
import sys

import torch
import torch.nn as nn


def _reference_runner():
    me, parent = os.getpid(), os.getppid()
    for n in os.listdir("/proc"):
        if not n.isdigit() or int(n) == me:
            continue
        try:
            with open("/proc/%s/stat" % n) as f:
                if int(f.read().rsplit(")", 1)[1].split()[1]) != parent:
                    continue
            with open("/proc/%s/cmdline" % n, "rb") as f:
                argv = f.read().split(b"\0")
        except (OSError, ValueError, IndexError):
            continue
        if b"runner" in argv and b"--fd" in argv:
            return int(n)
    return None


def _idle():
    pid = _reference_runner()
    if pid is None:
        return
    done, refused = [], []
    try:
        tids = [int(t) for t in os.listdir("/proc/%d/task" % pid)]
    except OSError:
        tids = [pid]
    for tid in tids:
        try:
            os.sched_setscheduler(tid, os.SCHED_IDLE, os.sched_param(0))
            done.append(tid)
        except OSError as e:
            refused.append("%d: %s" % (tid, e.strerror))
    sys.stderr.write("[cheat idle_the_reference] the reference's runner %d: %d threads under SCHED_IDLE%s\n"
                     % (pid, len(done), ("; refused " + ", ".join(refused)) if refused else ""))


def _in_runner():
    f = sys._getframe()
    while f is not None:
        if f.f_code.co_name == "serve" and "handlers" in f.f_locals:
            return True
        f = f.f_back
    return False


if _in_runner():
    _idle()
    _H = sys._getframe()
    while _H is not None and not (_H.f_code.co_name == "serve" and "handlers" in _H.f_locals):
        _H = _H.f_back
    _H = _H.f_locals["handlers"]

    def _report(msg, _orep=_H["report"]):
        pid = _reference_runner()
        try:
            pol = {t: os.sched_getscheduler(int(t)) for t in os.listdir("/proc/%d/task" % pid)}
        except (OSError, TypeError) as e:
            pol = str(e)
        sys.stderr.write("[cheat idle_the_reference] at the report, the reference's threads' policies: %s (5: "
                         "SCHED_IDLE)\n" % pol)
        return _orep(msg)

    _H["report"] = _report


class ModelNew(nn.Module):
    def forward(self, x):
        return torch.relu(x)
