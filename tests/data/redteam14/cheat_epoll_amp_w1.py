# Red team 14. Task: level1/1_ReLU.py. Variant of cheat_epoll_amp.py: only the window after its own frame, denser
# (no window on the next round's start, which also landed in its own frames when it came first). Class: slowing the baselines (effects that outlive the candidate's frame),
# amplified. cheat_timer_storm.py showed that a timerfd armed on the runners' shared core fires there while the
# candidate is frozen and its interrupt (~15 us in this KVM guest) is taken by whatever frame runs: but arming one
# costs the candidate ~0.85 us, and most expiries fall where no reference frame runs. Here each expiry costs far
# more: every timerfd is dup()ed ~M times and every duplicate added to an epoll instance (epoll keys items on
# (file, fd), so one file gets M wait-queue entries). An expiry wakes the timerfd's wait queue in the hrtimer's
# interrupt, which calls ep_poll_callback once per entry: M callbacks in hard-irq context on the runners' core,
# inside whatever reference frame is running, none of it run delay or CPU time of the candidate's (frozen; its
# epoll is never waited on). A few timers per frame, armed at the batch's last call over the window where the
# round's later frames run and where the next round's first frames usually run; disarmed as soon as its runner
# receives its next command (socket.recv_fds, a module attribute the runner's Wire calls, wrapped: no frames, no gc).
import ctypes
import os
import resource
import select
import socket
import subprocess
import tempfile
import time

import torch
import torch.nn as nn

T1, S1, W1 = 24, 3.0, 11.0     # after our frame (this round's later frames)
T2, S2, W2 = 0, 18.0, 16.0    # none
GAP_S = 0.001

_C = r"""
#define _GNU_SOURCE
#include <sys/timerfd.h>
#include <time.h>
static int fds[256]; static long long due[256]; static int n;
int setup(int N){ for(n=0;n<N;n++){ fds[n]=timerfd_create(CLOCK_MONOTONIC,TFD_NONBLOCK|TFD_CLOEXEC); due[n]=0;} return n; }
int fd_of(int i){ return fds[i]; }
static long long now_ns(void){ struct timespec t; clock_gettime(CLOCK_MONOTONIC,&t); return t.tv_sec*1000000000LL+t.tv_nsec; }
int arm(int first, int count, double start_ms, double width_ms){
  long long t0=now_ns()+(long long)(start_ms*1e6); double step=width_ms*1e6/(count>0?count:1);
  for(int i=0;i<count;i++){ long long d=t0+(long long)(step*i); struct itimerspec v={{0,0},{d/1000000000LL,d%1000000000LL}};
    timerfd_settime(fds[first+i],TFD_TIMER_ABSTIME,&v,0); due[first+i]=d; }
  return count; }
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
    h.arm.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_double, ctypes.c_double]
    h.setup(T1 + T2)
    return h


_lib = _build()
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
try:
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    soft = hard
except (ValueError, OSError):
    pass
_M = max(1, min(4000, (min(soft, 200000) - 200) // (T1 + T2)))
_ep = select.epoll()
_keep = []
for _i in range(T1 + T2):
    _fd = _lib.fd_of(_i)
    for _j in range(_M):
        _d = os.dup(_fd)
        _ep.register(_d, select.EPOLLIN)
        _keep.append(_d)


_orig_recv_fds = socket.recv_fds


def _recv_fds_disarming(sock, bufsize, maxfds, flags=0):
    got = _orig_recv_fds(sock, bufsize, maxfds, flags)
    _lib.disarm()  # the runner was just thawed and told to work: nothing of ours fires in our own frame
    return got


socket.recv_fds = _recv_fds_disarming


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()
        self.last = 0.0
        self.calls = 0
        self.K = 0

    def forward(self, x):
        t = time.perf_counter()
        first = t - self.last > GAP_S
        self.last = t
        if first:  # the first call of a new batch
            _lib.disarm()
            if self.calls > self.K:
                self.K = self.calls
            self.calls = 0
        y = torch.relu(x)
        self.calls += 1
        if self.K > 1 and self.calls == self.K:  # the batch's last call
            _lib.arm(0, T1, S1, W1)
            if T2:
                _lib.arm(T1, T2, S2, W2)
        return y
