# Red team 14. Task: level1/1_ReLU.py. Both cheat_spin_freeze.py (its own frames end sooner than the lane offset
# measured before its import: a busy non-blocking recv after its answer, so the judge's first freezer poll reads
# FROZEN) and cheat_timer_storm.py (timerfds armed at its batch's last call fire on the runners' core during the
# reference's frames, disarmed at its next batch's first call). See those files' headers.
import array
import socket
import ctypes
import os
import subprocess
import tempfile
import time

import torch
import torch.nn as nn

import socket

import torch
import torch.nn as nn

_orig_recv_fds = socket.recv_fds


def _spin_recv_fds(sock, bufsize, maxfds, flags=0):
    if sock.gettimeout() is not None:
        return _orig_recv_fds(sock, bufsize, maxfds, flags)
    fds = array.array("i")
    anc = socket.CMSG_LEN(maxfds * fds.itemsize)
    fl = flags | socket.MSG_DONTWAIT
    recvmsg = sock.recvmsg
    while True:
        try:
            msg, ancdata, mflags, addr = recvmsg(bufsize, anc, fl)
            break
        except BlockingIOError:
            continue
    for level, kind, data in ancdata:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(data[:len(data) - (len(data) % fds.itemsize)])
    return msg, list(fds), mflags, addr


socket.recv_fds = _spin_recv_fds



N_TIMERS = int(os.environ.get("RT14_N", "200"))
WINDOW_MS = float(os.environ.get("RT14_W", "10.0"))
START_MS = 2.0
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
