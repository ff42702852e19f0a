# Red team 14. Task: level1/1_ReLU.py. Class: slowing the baselines (effects that outlive the candidate's frame).
# Honest ReLU. Between its frames the candidate's processes are frozen (cgroup v1 freezer), but kernel timers
# they armed are not: a timerfd's hrtimer fires on the CPU it was armed on (the runners' shared core) whatever
# its owner's state, and its interrupt (in a KVM guest: host timer, VM exit, injection, EOI, TSC-deadline
# reprogramming) is taken by whatever runs there: the reference's eager and dry frames. Interrupt time is no
# run delay (schedstat), no CPU time of the candidate's (its processes never run), so no frame looks "delayed"
# and nothing counts as work while stopped. At the last call of each of its batches (the batch size is learnt
# from the first frames) it arms N timerfds spread over the next W ms; at the first call of its next batch it
# disarms those still pending, so its own frames see none. Arming/disarming is one ctypes call into a tiny C
# helper built with gcc at import (N syscalls each way).
import ctypes
import os
import subprocess
import tempfile
import time

import torch
import torch.nn as nn

N_TIMERS = int(os.environ.get("RT14_N", "200"))
WINDOW_MS = float(os.environ.get("RT14_W", "10.0"))
START_MS = float(os.environ.get("RT14_S", "2.0"))
GAP_S = 0.001

_C = r"""
#define _GNU_SOURCE
#include <sys/timerfd.h>
#include <time.h>
static int fds[4096]; static long long due[4096]; static int n;
int setup(int N){ if(N>4096)N=4096; for(n=0;n<N;n++){ fds[n]=timerfd_create(CLOCK_MONOTONIC,TFD_NONBLOCK|TFD_CLOEXEC); if(fds[n]<0) break; due[n]=0;} return n; }
static long long now_ns(void){ struct timespec t; clock_gettime(CLOCK_MONOTONIC,&t); return t.tv_sec*1000000000LL+t.tv_nsec; }
int arm(double start_ms, double width_ms){
  long long t0=now_ns()+(long long)(start_ms*1e6); double step=width_ms*1e6/(n>0?n:1);
  for(int i=0;i<n;i++){ long long d=t0+(long long)(step*i); struct itimerspec v={{0,0},{d/1000000000LL,d%1000000000LL}};
    timerfd_settime(fds[i],TFD_TIMER_ABSTIME,&v,0); due[i]=d; }
  return n; }
int disarm(void){ long long t=now_ns(); int k=0; struct itimerspec z={{0,0},{0,0}};
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
    h.arm.argtypes = [ctypes.c_double, ctypes.c_double]
    h.setup(N_TIMERS)
    return h


_lib = _build()


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()
        self.last = 0.0
        self.calls = 0
        self.K = 0

    def forward(self, x):
        t = time.perf_counter()
        if t - self.last > GAP_S:  # the first call of a new batch
            _lib.disarm()
            if self.calls > self.K:
                self.K = self.calls
            self.calls = 0
        y = torch.relu(x)
        self.calls += 1
        if self.K > 1 and self.calls == self.K:  # the batch's last call
            _lib.arm(START_MS, WINDOW_MS)
        self.last = time.perf_counter()
        return y
