# SPDX-License-Identifier: MIT
# Cheat class: blaming the harness. Task: level1/1_ReLU.py
# (Second red-team pass on the one-clock judge.) A candidate right in the correctness trials and wrong in
# every timed call (zeros), which would be wrong_result at the first checked round. Not as root, its
# process runs as the judge's user, like the reference's runner; the judge makes that runner undumpable,
# checks its nice value and CPUs before each of its frames, and makes its death after the candidate's
# import the candidate's crash. But a runner that *answers a failure* is still the harness's fault: the
# reference's lane turns any failure reply into internal_error (harness_out_of_memory when it says "out of
# memory"), before the import and after it alike. A signal makes one: SIGINT has a Python handler, so
# delivered while the runner is inside a command it raises KeyboardInterrupt there, which Runner.serve()
# catches (except BaseException) and answers as "the task's own code failed in a runner".
# The timing is the only difficulty: while the reference's frames run the candidate's runner is stopped.
# So at import it starts a helper (a fresh python -S), which double-forks away (the judge, a subreaper,
# adopts it and sweeps it with the runner's processes) and arms POSIX timers that send it SIGCONT every
# ~0.5 ms, so a stop by signal lasts one period. It polls /proc/<pid>/stat of both runners (readable
# though the reference is undumpable) and, the first time the candidate's runner is stopped and the
# reference's has run 0.3-1.5 ms on a CPU since it last became runnable (state R all along,
# /proc/<pid>/schedstat: inside a command of a timed round's frame, not waking up in recv, where a
# KeyboardInterrupt kills it: the candidate's crash), sends the reference SIGINT, then exits. The evaluation ends at once, with the judge blaming itself; integrity.work_while_stopped would
# have seen the helper's CPU time, but verdicts on time are only made once the timed rounds are over.
# (First tried: prlimit(2) on the reference's runner, which needs the same user ids only: RLIMIT_AS and
# RLIMIT_DATA lowered to what it holds. It does not bite on a CPU: steady_allocator keeps freed buffers
# in the heap, and the clean rounds already grew it to a timed round's size.)
# What would stop it: any failure of the reference's lane after the candidate's import made the
# candidate's crash when the candidate runs as the judge's user (as its death already is), or the
# reference's runner ignoring SIGINT (signal.signal(SIGINT, SIG_IGN) in the reference role). As root
# the candidate has a user id of its own and may not signal the reference: its timed zeros are
# wrong_result.
import os
import subprocess
import sys

import torch
import torch.nn as nn

_HELPER = r'''
import ctypes, os, signal, sys, time
cand, ref, log = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
if os.fork() > 0:
    os._exit(0)
os.setsid()
if os.fork() > 0:
    os._exit(0)
libc = ctypes.CDLL(None, use_errno=True)
class SigEvent(ctypes.Structure):
    _fields_ = [("sigev_value", ctypes.c_void_p), ("sigev_signo", ctypes.c_int), ("sigev_notify", ctypes.c_int),
                ("_pad", ctypes.c_byte * 48)]
class TS(ctypes.Structure):
    _fields_ = [("tv_sec", ctypes.c_long), ("tv_nsec", ctypes.c_long)]
class ITS(ctypes.Structure):
    _fields_ = [("it_interval", TS), ("it_value", TS)]
signal.signal(signal.SIGCONT, lambda *a: None)
for i in range(3):
    ev = SigEvent(); ev.sigev_signo = signal.SIGCONT; ev.sigev_notify = 0
    tid = ctypes.c_void_p()
    if libc.timer_create(1, ctypes.byref(ev), ctypes.byref(tid)) == 0:
        its = ITS(TS(0, 500000 + 77000 * i), TS(0, 500000 + 77000 * i))
        libc.timer_settime(tid, 0, ctypes.byref(its), None)
def state(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return "?"
out = open(log, "a", buffering=1)
def ran(pid):
    try:
        with open("/proc/%d/schedstat" % pid) as f:
            return int(f.read().split()[0])  # ns on a CPU (world-readable, undumpable or not)
    except (OSError, ValueError, IndexError):
        return None
t_end = time.time() + 60.0
since = None
while time.time() < t_end:
    c, r = state(cand), state(ref)
    if c == "?" or r == "?":
        break
    if not (c in ("T", "t") and r == "R"):
        since = None
        time.sleep(0.0002)
        continue
    if since is None:
        since = ran(ref)
        continue
    d = (ran(ref) or 0) - since
    if 300000 < d < 1500000:
        # 0.3-1.5 ms on a CPU since it last became runnable: inside the command it woke for, not waking
        # up in recv or reading the next command (where a KeyboardInterrupt kills it: the candidate's crash).
        os.kill(ref, signal.SIGINT)
        out.write("[cheat interrupt_the_reference] helper %d: SIGINT to the reference's runner %d in its frame "
                  "(the candidate's runner stopped)\n" % (os.getpid(), ref))
        break
    time.sleep(0.0002)
'''

_st = {"what": ""}


def _find_serve():
    f = sys._getframe()
    while f is not None:
        if f.f_code.co_name == "serve" and "handlers" in f.f_locals:
            return f.f_locals["handlers"]
        f = f.f_back
    return None


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


def _arm():
    ref = _reference_runner()
    try:
        os.kill(ref, 0)  # may this process signal it at all (the same user)?
        subprocess.Popen([sys.executable, "-S", "-c", _HELPER, str(os.getpid()), str(ref),
                          "/proc/%d/fd/2" % os.getpid()], stdin=subprocess.DEVNULL, close_fds=True)
        sys.stderr.write("[cheat interrupt_the_reference] helper started against the reference's runner %d\n" % ref)
    except (OSError, TypeError) as e:
        sys.stderr.write("[cheat interrupt_the_reference] the reference's runner %s is out of reach: %s\n" % (ref, e))


_H = _find_serve()
if _H is not None:
    _arm()  # at import: only the reference's frames (from the first timed round on) let it act
    _ob = _H["batch"]

    def _batch(msg):
        _st["what"] = str(msg.get("what", ""))
        return _ob(msg)

    _H["batch"] = _batch


class ModelNew(nn.Module):
    def forward(self, x):
        if _st["what"].startswith("trial") or _H is None:
            return torch.relu(x)
        return torch.zeros_like(x)  # wrong in every timed call
