# SPDX-License-Identifier: MIT
# Cheat class: slowing the baselines. Task: level1/3_Matmul.py
# Outcome: caught, or no faster than an honest copy.
# (Second red-team pass on the one-clock judge.) Not as root the candidate's process runs as the judge's
# user; the judge checks the reference's runner before each of its frames for a nice value or CPUs
# changed by such a process. Linux's scheduler (CONFIG_SCHED_AUTOGROUP, on here and in most distribution
# kernels) also weighs a whole session against the others: the autogroup of a session has a nice value of
# its own, which any member may lower by writing /proc/self/autogroup (no privilege to lower priority),
# and which no thread's nice value shows. The judge, both runners and the candidate are one session (the
# judge's, started by its host with a session of its own). At import the candidate writes 19 there, so
# the judge's session (the reference's runner with it) weighs 15 against a normal session's 1024 on a
# busy core, and then leaves that session with setsid() (the runner is not a group leader), into a fresh
# autogroup of its own at nice 0. Beside any other work (a neighbour's build, another evaluation, or the
# candidate's own helper), the reference's eager frames are starved, the candidate's calls are not.
# The candidate is an honest matmul otherwise.
# Measured (second pass, CPU, beside an honest copy): not as root 1.70x and 0.93x with no flag, 2.71x with
# baseline_interference; honest copies 0.71-0.99x. As root (the candidate's own uid, its own cgroup, but
# the judge's session) it could still write its autogroup: 0.14x with baseline_interference.
# What stops it: the baselines are never reported slower than their slowest clean round (timed before the
# import) and are compared with those (integrity.baseline_interference); the judge's own wake-ups are
# starved too (it is in the same autogroup), which lengthens the candidate's frames as well. The
# autogroup's nice and the candidate's session go unseen. (Fix: read /proc/<ref>/autogroup (its nice) and
# the candidate's session id (/proc/<pid>/stat field 6) before each frame, or start each runner in a
# session of its own and check its autogroup's nice; as root a cgroup of its own takes it out of autogroups.)
import os
import sys

import torch
import torch.nn as nn


def _in_runner():
    f = sys._getframe()
    while f is not None:
        if f.f_code.co_name == "serve" and "handlers" in f.f_locals:
            return True
        f = f.f_back
    return False


def _starve_the_session():
    try:
        before = open("/proc/self/autogroup").read().strip()
        with open("/proc/self/autogroup", "w") as f:
            f.write("19")
        judges = open("/proc/self/autogroup").read().strip()
        os.setsid()
        mine = open("/proc/self/autogroup").read().strip()
        sys.stderr.write("[cheat autogroup_the_reference] the judge's session: %s -> %s; this runner now in %s "
                         "(session %d)\n" % (before, judges, mine, os.getsid(0)))
    except OSError as e:
        sys.stderr.write("[cheat autogroup_the_reference] refused: %s\n" % e)


if _in_runner():
    _starve_the_session()


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        return torch.matmul(A, B)
