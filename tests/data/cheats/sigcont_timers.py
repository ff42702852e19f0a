# SPDX-License-Identifier: MIT
# Cheat class: escaping the stop. Task: level1/3_Matmul.py
# Outcome: caught, or no faster than an honest copy.
# (From the third red-team pass on the judge, ported to the one-clock judge.)
# Class: escaping the stop (SIGSTOP) with kernel-generated SIGCONT, to inflate the eager baseline.
# Honest forward. At import, four helper processes are forked; each arms POSIX timers whose signal is
# SIGCONT (timer_create + SIGEV_SIGNAL). SIGCONT resumes a stopped process at the moment it is
# generated, whatever its disposition, and a timer's signal needs no permission: so a judge that stops
# every process of the candidate's uid by signal holds them at most one timer period. The helpers burn
# CPU only while the runner itself is stopped, i.e. while the judge writes inputs, reads outputs and
# TIMES ITS EAGER BASELINE in the reference's runner; they go quiet as soon as the runner is resumed.
# What stops it: as root the candidate's processes are held in a frozen cgroup, which no signal thaws
# (the timers' SIGCONT stays pending until the judge thaws the group); without a cgroup, CPU time the
# helpers use between frames is integrity.work_while_stopped, and the baselines are timed clean
# before the import and never reported slower than their slowest clean round.
import ctypes, os, time
import torch
import torch.nn as nn

SIGCONT = 18
CLOCK_MONOTONIC = 1


class _SigEvent(ctypes.Structure):
    _fields_ = [("sigev_value", ctypes.c_void_p), ("sigev_signo", ctypes.c_int),
                ("sigev_notify", ctypes.c_int), ("_pad", ctypes.c_byte * 48)]


class _TS(ctypes.Structure):
    _fields_ = [("tv_sec", ctypes.c_long), ("tv_nsec", ctypes.c_long)]


class _ITS(ctypes.Structure):
    _fields_ = [("it_interval", _TS), ("it_value", _TS)]


def _sigcont_timers(n=3):
    """n POSIX timers that send this process SIGCONT. A SIGSTOP flushes a pending timer signal and
    such a timer is never re-armed (it dies), so there are several, and they are re-armed often."""
    libc = ctypes.CDLL(None, use_errno=True)
    tids = []
    for i in range(n):
        ev = _SigEvent()
        ev.sigev_signo = SIGCONT
        ev.sigev_notify = 0  # SIGEV_SIGNAL
        tid = ctypes.c_void_p()
        if libc.timer_create(CLOCK_MONOTONIC, ctypes.byref(ev), ctypes.byref(tid)) != 0:
            os._exit(3)
        tids.append(tid)
    specs = [_ITS(_TS(0, 900_000 + 137_000 * i), _TS(0, 900_000 + 137_000 * i)) for i in range(n)]

    def arm():
        for tid, its in zip(tids, specs):
            libc.timer_settime(tid, 0, ctypes.byref(its), None)
    arm()
    return arm


def _state(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "X"


def _helper(runner):
    import signal
    # a handler, so the timer's SIGCONT is not 'ignored' (6.x kernels drop ignored timer signals)
    signal.signal(signal.SIGCONT, lambda *a: None)
    arm = _sigcont_timers()
    k = 0
    deadline = time.time() + 30.0  # never outlives a test run, whatever the judge does
    while time.time() < deadline:
        k += 1
        if k % 20 == 0:
            arm()
        st = _state(runner)
        if st == "X":
            os._exit(0)
        if st in ("T", "t"):
            end = time.perf_counter() + 0.0002
            x = 0
            while time.perf_counter() < end:
                x += 1
        else:
            time.sleep(0.001)


_runner = os.getpid()
for _ in range(4):
    if os.fork() == 0:
        try:
            _helper(_runner)
        finally:
            os._exit(0)


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, A, B):
        return torch.matmul(A, B)
