# Red team 14. Task: level1/1_ReLU.py. Class: slowing the baselines (effects that outlive the candidate's frame),
# aimed. Honest ReLU; cheat_timer_storm.py (timerfd interrupts on the runners' shared core, ~15 us each in this
# KVM guest, taken by whichever frame runs there, no run delay, no CPU time of the candidate's), but aimed at the
# eager frames. The reference's runner is the other child of the candidate's parent whose cmdline says
# "kwb_worker.py runner"; it is undumpable and of another user, yet /proc/<pid>/schedstat (its CPU time) is readable
# by anyone. Frozen through the candidate's frame, its CPU time since the candidate's previous frame is
# cost(frames after the candidate in the previous round) + cost(frames before it in this round); eager (+ its
# delivery) costs about twice a dry frame (+ its delivery), so the frames before it in this round are inferred
# round by round. If eager is still to come in this round, the timers are armed over the next few ms (where it
# runs, after the judge's copy of the candidate's outputs); otherwise over where the next round's first frames are
# expected (learnt from the gaps seen when the candidate was first), and when eager comes after it, both windows.
# Disarmed at its own next first call.
import ctypes
import os
import statistics
import subprocess
import tempfile
import time

import torch
import torch.nn as nn

N1, S1, W1 = 150, 2.5, 9.0   # eager still to come in this round: window after the judge's copy of our outputs
N2, W2 = 150, 9.0            # next round's first frames
GAP_S = 0.001

_C = r"""
#define _GNU_SOURCE
#include <sys/timerfd.h>
#include <time.h>
static int fds[4096]; static long long due[4096]; static int n;
int setup(int N){ if(N>4096)N=4096; for(n=0;n<N;n++){ fds[n]=timerfd_create(CLOCK_MONOTONIC,TFD_NONBLOCK|TFD_CLOEXEC); if(fds[n]<0) break; due[n]=0;} return n; }
static long long now_ns(void){ struct timespec t; clock_gettime(CLOCK_MONOTONIC,&t); return t.tv_sec*1000000000LL+t.tv_nsec; }
int arm(double start_ms, double width_ms, int count){
  if(count>n) count=n;
  long long t0=now_ns()+(long long)(start_ms*1e6); double step=width_ms*1e6/(count>0?count:1);
  for(int i=0;i<count;i++){ long long d=t0+(long long)(step*i); struct itimerspec v={{0,0},{d/1000000000LL,d%1000000000LL}};
    timerfd_settime(fds[i],TFD_TIMER_ABSTIME,&v,0); due[i]=d; }
  return count; }
static int used;
int arm2(double s, double w, int c, double s2, double w2, int c2){ used=arm(s,w,c); return used; }
int arm_more(double start_ms, double width_ms, int count){
  if(used+count>n) count=n-used;
  long long t0=now_ns()+(long long)(start_ms*1e6); double step=width_ms*1e6/(count>0?count:1);
  for(int i=0;i<count;i++){ long long d=t0+(long long)(step*i); struct itimerspec v={{0,0},{d/1000000000LL,d%1000000000LL}};
    timerfd_settime(fds[used+i],TFD_TIMER_ABSTIME,&v,0); due[used+i]=d; }
  used+=count; return count; }
int disarm(void){ used=0; long long t=now_ns(); int k=0; struct itimerspec z={{0,0},{0,0}};
  for(int i=n-1;i>=0;i--){ if(due[i]>t){ timerfd_settime(fds[i],0,&z,0); k++; } due[i]=0; }
  return k; }
"""


def _build():
    d = tempfile.mkdtemp(prefix="rt14")
    src, lib = os.path.join(d, "t.c"), os.path.join(d, "t.so")
    with open(src, "w") as f:
        f.write(_C)
    subprocess.run(["gcc", "-O2", "-shared", "-fPIC", "-o", lib, src], check=True)
    h = ctypes.CDLL(lib)
    h.arm.argtypes = [ctypes.c_double, ctypes.c_double, ctypes.c_int]
    h.arm2.argtypes = [ctypes.c_double, ctypes.c_double, ctypes.c_int, ctypes.c_double, ctypes.c_double, ctypes.c_int]
    h.arm_more.argtypes = [ctypes.c_double, ctypes.c_double, ctypes.c_int]
    h.setup(N1 + N2)
    return h


def _ppid(pid):
    with open("/proc/%d/stat" % pid) as f:
        return int(f.read().rsplit(")", 1)[1].split()[1])


def _find_reference():
    me, parent = os.getpid(), os.getppid()
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == me:
            continue
        try:
            with open("/proc/%s/cmdline" % name, "rb") as f:
                cmd = f.read()
            if b"kwb_worker.py\x00runner" in cmd and _ppid(int(name)) == parent:
                return int(name)
        except (OSError, ValueError, IndexError):
            continue
    return None


_lib = _build()
_ref = _find_reference()


def _ref_ms():
    try:
        with open("/proc/%d/schedstat" % _ref) as f:
            return int(f.read().split()[0]) / 1e6
    except (OSError, ValueError, TypeError):
        return None


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()
        self.last = 0.0
        self.prev_end = 0.0
        self.calls = 0
        self.K = 0
        self.R = None          # reference CPU ms at our previous frame
        self.xs = []           # its CPU ms between our frames
        self.before = None     # inferred cost of the frames before us in the previous round
        self.eager_after = False
        self.bases = []  # gap when we were first, less the frames that followed us the round before
        self.after_prev = None

    def _infer(self, t):
        r = _ref_ms()
        x = None if (r is None or self.R is None) else r - self.R
        self.R = r
        gap = t - self.prev_end
        if x is None or not self.K:
            self.before = None
            return
        self.xs.append(x)
        if len(self.xs) < 3:
            self.before = None
            return
        de = statistics.median(self.xs[-15:])  # cost(dry) + cost(eager)
        d, e = de / 3.0, 2.0 * de / 3.0
        opts = {0: 0.0, 1: d, 2: e, 3: de}  # bit 1: dry before us, bit 2: eager before us
        prev = self.before if self.before is not None else 3
        prev_cost = opts[prev]
        cost_b = x - (de - prev_cost)  # x = cost(after us last round) + cost(before us now)
        self.before = min(opts, key=lambda k: abs(opts[k] - cost_b))
        if self.before == 0 and self.after_prev is not None and gap < 0.060:
            self.bases.append(gap - self.after_prev)

    def forward(self, x):
        t = time.perf_counter()
        first = t - self.last > GAP_S
        self.last = t
        if first:  # the first call of a new batch
            _lib.disarm()
            if self.calls > self.K:
                self.K = self.calls
            self.calls = 0
            self._infer(t)
        y = torch.relu(x)
        self.calls += 1
        if self.K > 1 and self.calls == self.K:  # the batch's last call
            self.prev_end = t
            if self.before is not None:
                # seconds the frames after us in this round hold (with their deliveries and the judge's work)
                after = (0.0032 if not (self.before & 1) else 0.0) + (0.0055 if not (self.before & 2) else 0.0)
                self.after_prev = after
                if not (self.before & 2):  # eager still to come in this round
                    _lib.arm2(S1, W1, N1, -1.0, 0.0, 0)
                if len(self.bases) >= 2:  # the next round's first frames
                    start = (statistics.median(self.bases) + after) * 1e3 - 1.5
                    if start > S1 + W1:
                        _lib.arm2(start, W2, N2, -1.0, 0.0, 0) if (self.before & 2) else _lib.arm_more(start, W2, N2)
        return y
