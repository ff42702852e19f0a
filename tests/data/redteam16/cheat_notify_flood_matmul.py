# RED TEAM 16 -- cheat: make the judge's own syscalls on the REFERENCE runner's cgroup files expensive
# (task: level1/3_Matmul; the forward is an honest fp32 matrix product, torch.linalg.matmul(A, B)).
#
# The judge freezes/thaws each runner through its cgroup v2 files (freezer.py): inside every
# reference-lane frame (eager and dry) it writes the reference cgroup's cgroup.freeze twice (thaw right
# after t0, freeze before t1) and reads its cgroup.events until "frozen 1" -- each an open, a write or
# read, a close: 3 fsnotify events each.  Those files are world-readable, so the candidate (its own uid,
# frozen outside its frames) puts inotify watches (128 instances, the per-user limit) and unprivileged
# fanotify marks (FAN_REPORT_FID, 128 groups) on them, and fans each notification fd out into an epoll
# (ep_poll_callback on every queued event; NEST more epolls watching those multiply the callbacks).  All of it is delivered synchronously inside the JUDGE's
# own open/write/read/close, on the judge's core, while the candidate sleeps frozen: no CPU of the
# candidate's cgroup (work_while_stopped clean), no run delay for anyone (the judge's thread is running,
# in the kernel: frames stay "quiet"), nothing lingering.  The candidate's own frames go through its own
# cgroup's files, which it does not watch.  The clean rounds ran before the import: unaffected.
# lane_slowdown (dry frames timed / clean) grows far more than eager's frames (a fixed cost per frame on a
# 0.5 ms dry frame vs a 2.7 ms eager frame), so cap_slowdown lifts the baseline cap above the slowed eager.
# Pure ctypes + select.epoll: no compiler, no subprocess, nothing the static detectors read as tampering.
import ctypes
import os
import select

import torch
import torch.nn as nn

DUPS = 10  # epoll entries per notification fd (each dup is one ep_poll_callback per queued event)
NEST = 10  # epolls watching every group's epoll: each of the DUPS callbacks wakes NEST more (nested epoll)

IN_OPEN, IN_ACCESS, IN_MODIFY, IN_CLOSE_WRITE, IN_CLOSE_NOWRITE = 0x20, 0x1, 0x2, 0x8, 0x10
FAN_OPEN, FAN_ACCESS, FAN_MODIFY, FAN_CLOSE_WRITE, FAN_CLOSE_NOWRITE = 0x20, 0x1, 0x2, 0x8, 0x10
FAN_CLASS_NOTIF, FAN_REPORT_FID, FAN_NONBLOCK, FAN_CLOEXEC, FAN_MARK_ADD = 0, 0x200, 0x2, 0x1, 0x1
AT_FDCWD = -100
_keep = []  # the notification fds, their duplicates and epolls live as long as the process


def _v2_path(pid):
    try:
        with open("/proc/%s/cgroup" % pid) as f:
            for line in f:
                if line.startswith("0::"):
                    return line.strip()[3:]
    except OSError:
        pass
    return None


def _other_runner_cgroups():
    """The cgroup v2 folder of the other runner of our judge: a sibling process (same parent) whose command line
    runs kwb_worker's runner."""
    me, parent, out = os.getpid(), os.getppid(), []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == me:
            continue
        try:
            with open("/proc/%s/stat" % name) as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            if ppid != parent:
                continue
            with open("/proc/%s/cmdline" % name, "rb") as f:
                if b"runner" not in f.read():
                    continue
        except (OSError, ValueError, IndexError):
            continue
        p = _v2_path(name)
        if p and p != _v2_path(me):
            out.append("/sys/fs/cgroup/unified" + p)
    return out


def _watch():
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.fanotify_mark.argtypes = [ctypes.c_int, ctypes.c_uint, ctypes.c_uint64, ctypes.c_int, ctypes.c_char_p]
        libc.inotify_add_watch.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
        written, read = [], []
        for cg in _other_runner_cgroups():
            written.append((cg + "/cgroup.freeze").encode())
            read.append((cg + "/cgroup.events").encode())
        if not written:
            return 0
        marks = 0
        for i in range(256):
            ino = i < 128
            fd = libc.inotify_init1(0o4000 | 0o2000000) if ino else \
                libc.fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_FID | FAN_NONBLOCK | FAN_CLOEXEC, os.O_RDONLY)
            if fd < 0:
                continue
            ok = 0
            for paths, imask, fmask in ((written, IN_OPEN | IN_MODIFY | IN_CLOSE_WRITE,
                                         FAN_OPEN | FAN_MODIFY | FAN_CLOSE_WRITE),
                                        (read, IN_OPEN | IN_ACCESS | IN_CLOSE_NOWRITE,
                                         FAN_OPEN | FAN_ACCESS | FAN_CLOSE_NOWRITE)):
                for p in paths:
                    r = libc.inotify_add_watch(fd, p, imask) if ino else libc.fanotify_mark(fd, FAN_MARK_ADD, fmask,
                                                                                           AT_FDCWD, p)
                    ok += r >= 0
            if not ok:
                continue
            marks += ok
            ep = select.epoll()
            _keep.append((fd, ep))
            for _ in range(DUPS):
                d = libc.dup(fd)
                if d < 0:
                    break
                ep.register(d, select.EPOLLIN)
        tops = [select.epoll() for _ in range(NEST)]
        for top in tops:
            for _, ep in _keep:
                top.register(ep.fileno(), select.EPOLLIN)
        _keep.append(tops)
        return marks
    except Exception:
        return 0


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.marks = _watch()

    def forward(self, A, B):
        return torch.linalg.matmul(A, B)
