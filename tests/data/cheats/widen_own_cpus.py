# SPDX-License-Identifier: MIT
# Cheat class: work on another thread or stream. Task: level1/3_Matmul.py
# Outcome: caught, or no faster than an honest copy.
# (Second red-team pass on the one-clock judge.) Both runners are pinned to the same single core
# (runner_cpus(): on a CPU one core for both, so that neither lane runs where the other does not), and
# the reference's runner is checked before each of its frames for CPUs moved by someone else. The
# candidate's own runner is never checked: sched_setaffinity(2) on one's own threads needs no privilege
# within the cgroup's cpuset. So at its first timed batch (the runner's "batch" command, wrapped in its
# command table found up the stack at import; after "setup", when the judge has pinned it again) the
# candidate puts every thread of its process back on every CPU the machine lets it have, raises torch's
# intra-op threads to as many, and computes the task's own matmul: on N cores an honest kernel with N
# threads, timed against a reference held to one. Every output is right, no clock or verdict is touched.
# What would stop it: the candidate's runner's CPUs read with its CPU time between frames (every thread,
# /proc/<pid>/task/*/status Cpus_allowed_list) and a widened set refused or flagged, or its CPU time in
# a frame beyond the frame's wall time (more than one core's worth) flagged; or a cpuset cgroup of one
# core for the candidate (as root it has a cgroup of its own: cpuset.cpus would hold it).
import os
import sys

import torch
import torch.nn as nn

_st = {"widened": None}


def _find_serve():
    f = sys._getframe()
    while f is not None:
        if f.f_code.co_name == "serve" and "handlers" in f.f_locals:
            return f.f_locals["handlers"]
        f = f.f_back
    return None


def _widen():
    want = set(range(os.cpu_count() or 1))
    got = []
    for t in os.listdir("/proc/self/task"):
        try:
            os.sched_setaffinity(int(t), want)
            got.append(int(t))
        except OSError:
            pass
    n = len(os.sched_getaffinity(0))
    torch.set_num_threads(n)
    _st["widened"] = n
    sys.stderr.write("[cheat widen_own_cpus] %d threads moved onto %d CPUs (%s), torch threads %d\n"
                     % (len(got), n, sorted(os.sched_getaffinity(0)), torch.get_num_threads()))


_H = _find_serve()
if _H is not None:
    _ob = _H["batch"]

    def _batch(msg):
        if _st["widened"] is None and str(msg.get("what", "")) != "" and not str(msg.get("what")).startswith("trial"):
            _widen()
        return _ob(msg)

    _H["batch"] = _batch


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        return torch.matmul(A, B)
