#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Device machine only: what the judge's device transport rests on, measured.

1. A region exported by fd (kwb_worker.devmem) is seen by a child of another user id (as root) and
   a write of the child's is seen by the parent; D2D copy bandwidth in and out of the region.
2. Freezing and thawing a CUDA process in a cgroup (kwb_worker.freezer): how long each takes.
3. A kernel of another process left running on the GPU: what it does to the latency of a tiny kernel
   of ours (the signature of the candidate's GPU work outliving its call).

Usage: devmem_check.py
"""
import os
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "core", "eval", "worker"))

import torch  # noqa: E402

from kwb_worker import devmem  # noqa: E402
from kwb_worker.freezer import Freezer  # noqa: E402

CHILD = r"""
import os, socket, sys, time
sys.path.insert(0, sys.argv[2])
import torch
from kwb_worker import devmem
s = socket.socket(fileno=int(sys.argv[1]))
msg, fds, _, _ = socket.recv_fds(s, 1024, 4)
size = int(msg.decode())
torch.empty(1, device="cuda")
t0 = time.perf_counter()
mem = devmem.SharedDeviceMemory.import_fd(fds[0], size)
t = mem.tensor()
imp = (time.perf_counter() - t0) * 1000
first = int(t[:4096].view(torch.int32)[0])
t[size // 2:size // 2 + 16].fill_(7)
torch.cuda.synchronize()
s.sendall(("%d %d %.3f\n" % (os.getuid(), first, imp)).encode())
s.recv(16)  # then: a long kernel, for the latency probe
torch.cuda._sleep(int(2e9))  # ~1 s of spinning on the GPU, queued and left running
s.sendall(b"spinning\n")
s.recv(16)
"""


def main():
    torch.empty(1, device="cuda")
    size = 1 << 30
    t0 = time.perf_counter()
    mem = devmem.SharedDeviceMemory.allocate(size)
    alloc_ms = (time.perf_counter() - t0) * 1000
    t = mem.tensor()
    t.view(torch.int32).fill_(12345)
    torch.cuda.synchronize()
    src = torch.rand(size // 4, device="cuda")
    for _ in range(2):
        torch.cuda.synchronize()
        a = time.perf_counter()
        t.view(torch.float32).copy_(src)
        torch.cuda.synchronize()
        cp = (time.perf_counter() - a) * 1000
    print("allocated %d MiB by VMM in %.1f ms (granularity %d); D2D copy of 1 GiB into it: %.2f ms (%.0f GB/s)"
          % (mem.size >> 20, alloc_ms, devmem.granularity(mem.device_index), cp, size / cp / 1e6))
    t.view(torch.int32).fill_(12345)
    torch.cuda.synchronize()

    ours, theirs = socket.socketpair()
    uid = 61234 if os.geteuid() == 0 else None

    def drop():
        if uid is not None:
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)

    p = subprocess.Popen([sys.executable, "-c", CHILD, str(theirs.fileno()), os.path.join(HERE, "..", "..", "core", "eval", "worker")],
                         pass_fds=(theirs.fileno(),), preexec_fn=drop, cwd="/")
    theirs.close()
    fd = mem.export_fd()
    socket.send_fds(ours, [str(mem.size).encode()], [fd])
    os.close(fd)
    line = ours.makefile().readline().split()
    torch.cuda.synchronize()
    seen = int(t[size // 2])
    print("child uid %s saw %s (expected 12345), imported in %s ms; its write seen here: %s (expected 7)"
          % (line[0], line[1], line[2], seen))
    ok = line[1] == "12345" and seen == 7

    fz = Freezer.make("kwb-probe")
    if fz is not None:
        fz.add(p.pid)
        fr, th = [], []
        for _ in range(5):
            a = time.perf_counter()
            fz.freeze()
            fr.append((time.perf_counter() - a) * 1000)
            a = time.perf_counter()
            fz.thaw()
            th.append((time.perf_counter() - a) * 1000)
        print("cgroup freeze of a CUDA process: %s ms; thaw %s ms" % (["%.2f" % x for x in fr], ["%.3f" % x for x in th]))
    else:
        print("no cgroup freezer here")

    def tiny_latency(n=20):
        x = torch.zeros(1, device="cuda")
        lat = []
        for _ in range(n):
            torch.cuda.synchronize()
            a = time.perf_counter()
            x.add_(1)
            torch.cuda.synchronize()
            lat.append((time.perf_counter() - a) * 1000)
        lat.sort()
        return lat[len(lat) // 2], lat[-1]

    print("tiny kernel latency, GPU otherwise idle: median %.3f ms, max %.3f ms" % tiny_latency())
    ours.sendall(b"go\n")
    ours.makefile().readline()
    if fz is not None:
        fz.freeze()
    print("tiny kernel latency, another process's kernel running (its CPU %s): median %.3f ms, max %.3f ms"
          % ("frozen" if fz else "running", *tiny_latency(10)))
    if fz is not None:
        fz.thaw()
    ours.sendall(b"end\n")
    p.wait(timeout=30)
    if fz is not None:
        fz.remove()
    print("devmem check: %s" % ("PASS" if ok else "FAIL"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
