# RED TEAM 16 -- cheat: hardware-interrupt storm left behind by a frozen candidate (task: level1/1_ReLU).
#
# The forward is a plain, honest torch.relu (same work as the task's Model).  Besides that, at the end of
# each of its timed frames (the last call of the batch: the batch size K is learned from the previous
# frames) the candidate arms ~N one-shot POSIX timers (timer_create/timer_settime, CLOCK_MONOTONIC, a
# blocked real-time signal directed at its own main thread), spaced a few tens of microseconds apart,
# starting just after its frame ends and lasting W ms.  The judge then freezes the candidate's cgroup:
# none of its threads runs, its cgroup's CPU time does not move, nothing of it is runnable, so the
# run-delay ("quiet") and work-while-stopped checks see nothing.  But the hrtimers stay armed on the
# runners' shared core, and each expiry is a timer interrupt (in this Firecracker VM ~25 us of the vCPU's
# time each: VM exits + LAPIC reprogramming) that lands on whoever runs there: the reference runner's
# eager and dry frames.  The signal is blocked, so the frozen thread is never woken.  At the start of its
# next frame the candidate cancels the timers that have not fired yet, so its own frames run storm-free.
# The slowed dry frames raise lane_slowdown and the arming cost raises candidate_pace: both lift the
# baseline cap (cap_slowdown) that was meant to stop exactly this.
import ctypes
import os
import subprocess
import tempfile
import time

import torch
import torch.nn as nn

N_TIMERS = int(os.environ.get("RT16_N", "1200"))
SPACING_NS = int(os.environ.get("RT16_SPACING_NS", "40000"))
START_NS = int(os.environ.get("RT16_START_NS", "250000"))

_C = r"""
#define _GNU_SOURCE
#include <signal.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pthread.h>
#include <sys/syscall.h>
static timer_t *T; static long long *E; static int N;
#define SIG (SIGRTMIN+5)
static long long now_ns(void){struct timespec t; clock_gettime(CLOCK_MONOTONIC,&t); return t.tv_sec*1000000000LL+t.tv_nsec;}
int st_init(int n){
  sigset_t s; sigemptyset(&s); sigaddset(&s,SIG); pthread_sigmask(SIG_BLOCK,&s,NULL);
  T=calloc(n,sizeof(timer_t)); E=calloc(n,sizeof(long long)); N=0;
  for(int i=0;i<n;i++){ struct sigevent ev; memset(&ev,0,sizeof ev);
    ev.sigev_notify=SIGEV_THREAD_ID; ev.sigev_signo=SIG; ev._sigev_un._tid=syscall(SYS_gettid);
    if(timer_create(CLOCK_MONOTONIC,&ev,&T[i])) break; N++; }
  return N;
}
int st_arm(int n, long long delay, long long step){
  long long t0=now_ns()+delay; if(n>N) n=N;
  for(int i=0;i<n;i++){ struct itimerspec v; memset(&v,0,sizeof v); long long e=t0+i*step;
    v.it_value.tv_sec=e/1000000000LL; v.it_value.tv_nsec=e%1000000000LL; E[i]=e;
    timer_settime(T[i],TIMER_ABSTIME,&v,NULL);}
  return n;
}
int st_disarm(void){ long long t=now_ns(); int c=0; struct itimerspec z; memset(&z,0,sizeof z);
  for(int i=N-1;i>=0;i--){ if(E[i]>t){ timer_settime(T[i],0,&z,NULL); c++;} E[i]=0; }
  return c; }
"""


def _load():
    d = tempfile.mkdtemp(prefix="rt16")
    src, so = os.path.join(d, "s.c"), os.path.join(d, "s.so")
    with open(src, "w") as f:
        f.write(_C)
    subprocess.run(["gcc", "-O2", "-shared", "-fPIC", "-o", so, src], check=True)
    lib = ctypes.CDLL(so)
    lib.st_arm.argtypes = [ctypes.c_int, ctypes.c_longlong, ctypes.c_longlong]
    return lib


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.lib = _load()
        self.n = self.lib.st_init(N_TIMERS)
        self.last = 0
        self.calls = 0
        self.k = 1  # calls in the previous frame
        self.arm_s = 0.001

    def forward(self, x):
        now = time.perf_counter()
        if now - self.last > 0.001:  # the first call of a new frame
            self.lib.st_disarm()
            if self.calls:
                self.k = self.calls
            self.calls = 0
        y = torch.relu(x)
        self.calls += 1
        if self.calls == self.k:  # the last call of the frame (as far as the previous frame tells)
            # the storm starts once the arming is done (timers firing while arming would slow the arming)
            t = time.perf_counter()
            self.lib.st_arm(self.n, START_NS + int(1.3e9 * self.arm_s), SPACING_NS)
            self.arm_s = min(time.perf_counter() - t, 0.003)
        self.last = time.perf_counter()
        return y
