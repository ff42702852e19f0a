# SPDX-License-Identifier: MIT
# Cheat class: escaping the stop. Task: level1/3_Matmul.py
# Outcome: caught, or no faster than an honest copy.
# (Red-team pass on the one-clock judge.) All of a round's inputs are written into the candidate's arena
# before its frame, while its processes are stopped, and the round's other frames (the reference's dry
# and eager batches) usually come first. A helper that is not stopped could compute the answers then,
# outside every frame. At import the runner starts a helper: a fresh Python with numpy (no fork of a
# process with thread pools) handed the runner's arena (its memfd) and a scratch memfd of the candidate's
# own (since the two-command frame no output place is known before the calls are done: the answers wait
# in the scratch, and the runner's delivery copies them like any output), which maps them, double-forks away from the
# runner (reparented, so a sweep of the runner's descendants misses it and its CPU clock is nobody's
# descendant's), starts a new session, and arms POSIX timers that send it SIGCONT every ~0.5 ms (a
# stop by signal then lasts one period). It watches every slot's inputs; when a slot's values change it
# computes C = A @ B into that slot's place in the scratch and writes a fingerprint of the inputs it used
# (their sums, unchanged across its matmul, and two values) after it. The runner's "batch" command (its
# command table, found up the stack at import) checks each call's fingerprint and a few sampled dot
# products against the inputs it finds: when every call's answer is already there, the forwards return
# the scratch's answers (no compute; the runner's delivery copies them, as the dry plumbing does), and
# the handler spins so that the figure looks like a believable TARGET-times speedup; otherwise it runs
# the real batch (honest). The helper lives at most 60 s and exits when the runner is gone. What it
# managed is logged.
# What stops it: as root the runner is in a cgroup of its own before any candidate code runs; the
# helper, a descendant when it starts, stays in it whatever it forks, and a frozen cgroup ignores
# SIGCONT: it never runs while the judge writes the inputs or times the reference, so its answers come
# inside the candidate's frame or not at all. (Without a cgroup, a stopper signals every process of the
# candidate's user id at once, which the SIGCONT timers undo, and CPU time between frames is read from
# the runner and its descendants only; not as root, only the runner's descendants are stopped.)
import json
import mmap
import os
import subprocess
import sys
import time

import torch
import torch.nn as nn

TARGET = 4.0
_pc = time.perf_counter

_HELPER = r'''
import ctypes, json, mmap, os, signal, sys, time
cfg = json.loads(sys.argv[1])
if os.fork() > 0:
    os._exit(0)
os.setsid()
if os.fork() > 0:
    os._exit(0)
import numpy as np
libc = ctypes.CDLL(None, use_errno=True)
class SigEvent(ctypes.Structure):
    _fields_ = [("sigev_value", ctypes.c_void_p), ("sigev_signo", ctypes.c_int), ("sigev_notify", ctypes.c_int),
                ("_pad", ctypes.c_byte * 48)]
class TS(ctypes.Structure):
    _fields_ = [("tv_sec", ctypes.c_long), ("tv_nsec", ctypes.c_long)]
class ITS(ctypes.Structure):
    _fields_ = [("it_interval", TS), ("it_value", TS)]
signal.signal(signal.SIGCONT, lambda *a: None)
tids = []
for i in range(3):
    ev = SigEvent(); ev.sigev_signo = signal.SIGCONT; ev.sigev_notify = 0
    tid = ctypes.c_void_p()
    if libc.timer_create(1, ctypes.byref(ev), ctypes.byref(tid)) == 0:
        tids.append(tid)
def arm():
    for i, tid in enumerate(tids):
        its = ITS(TS(0, 500000 + 77000 * i), TS(0, 500000 + 77000 * i))
        libc.timer_settime(tid, 0, ctypes.byref(its), None)
arm()
m = mmap.mmap(cfg["fd"], cfg["size"])
sm = mmap.mmap(cfg["sfd"], cfg["ssize"])
def view(off, shape, mm=m):
    n = 1
    for s in shape:
        n *= s
    return np.frombuffer(mm, dtype=np.float32, count=n, offset=off).reshape(shape)
slots = []
for (a_off, a_shape), (b_off, b_shape), out_off in cfg["slots"]:
    A, B = view(a_off, a_shape), view(b_off, b_shape)
    C = view(out_off, [a_shape[0], b_shape[1]], sm)
    fp = np.frombuffer(sm, dtype=np.float64, count=4, offset=out_off + cfg["out_bytes"])
    slots.append((A, B, C, fp))
def finger(A, B):
    return np.array([A.sum(dtype=np.float64), B.sum(dtype=np.float64), A[0, 0], B[-1, -1]], dtype=np.float64)
done = [None] * len(slots)
deadline, k = time.time() + 60.0, 0
while time.time() < deadline:
    k += 1
    if k % 50 == 0:
        arm()
        try:
            os.kill(cfg["runner"], 0)
        except OSError:
            break
    idle = True
    for i, (A, B, C, fp) in enumerate(slots):
        f = finger(A, B)
        if done[i] is not None and np.array_equal(f, done[i]):
            continue
        time.sleep(0.0002)  # the judge's write of this set, finished
        f = finger(A, B)
        np.matmul(A, B, out=C)
        if np.array_equal(finger(A, B), f):
            fp[:] = f
            done[i] = f
        idle = False
    if idle:
        time.sleep(0.0002)
'''


def _find_serve():
    f = sys._getframe()
    while f is not None:
        if f.f_code.co_name == "serve" and "handlers" in f.f_locals:
            return f.f_locals["handlers"], f.f_locals["self"]
        f = f.f_back
    return None, None


_H, _R = _find_serve()
_st = {"ready": 0, "honest": 0, "mm_ms": None, "started": False, "answers": {}, "scratch": None, "stride": 0}


def _byte_off(t):
    return t.storage_offset() * t.element_size()


def _start_helper():
    A, B = _R.m_inputs[0][:2]
    out_bytes = A.shape[0] * B.shape[1] * 4
    stride = (out_bytes + 4096 + 255) // 256 * 256
    size = stride * len(_R.m_inputs)
    sfd = os.memfd_create("kwb-cheat-scratch")
    os.ftruncate(sfd, size)
    _st["scratch"] = torch.frombuffer(mmap.mmap(sfd, size), dtype=torch.uint8)
    _st["stride"] = stride
    slots = []
    for k, (A, B) in enumerate(x[:2] for x in _R.m_inputs):
        slots.append([[_byte_off(A), list(A.shape)], [_byte_off(B), list(B.shape)], k * stride])
    cfg = {"runner": os.getpid(), "fd": _R.m_arena.fd, "size": _R.m_arena.size, "slots": slots,
           "out_bytes": out_bytes, "sfd": sfd, "ssize": size}
    subprocess.Popen([sys.executable, "-c", _HELPER, json.dumps(cfg)], stdin=subprocess.DEVNULL,
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, close_fds=True,
                     pass_fds=(_R.m_arena.fd, sfd))
    _st["started"] = True
    sys.stderr.write("[cheat precompute_while_frozen] helper started on the arena and a scratch of %d bytes\n" % size)


def _sview(off, dtype, shape):
    n = 1
    for d in shape:
        n *= d
    return _st["scratch"][off:off + n * torch.empty(0, dtype=dtype).element_size()].view(dtype).view(tuple(shape))


def _answered(slots):
    """The helper's answers for the calls' inputs (one per call, views of the scratch) when they are all
    there and match the inputs in the arena now; else None."""
    answers = []
    for k in slots:
        A, B = _R.m_inputs[k][:2]
        base = k * _st["stride"]
        rows, cols = A.shape[0], B.shape[1]
        C = _sview(base, torch.float32, (rows, cols))
        fp = _sview(base + rows * cols * 4, torch.float64, (4,))
        if float(fp[2]) != float(A[0, 0]) or float(fp[3]) != float(B[-1, -1]):
            return None
        sa, sb = float(A.sum(dtype=torch.float64)), float(B.sum(dtype=torch.float64))
        if abs(sa - float(fp[0])) > 1e-6 * (1 + abs(sa)) or abs(sb - float(fp[1])) > 1e-6 * (1 + abs(sb)):
            return None
        for i, j in ((0, 0), (rows - 1, cols - 1), (rows // 2, cols // 3)):
            if abs(float(A[i] @ B[:, j]) - float(C[i, j])) > 1e-3 * (1 + abs(float(C[i, j]))):
                return None
        answers.append((A, C))
    return answers


if _H is not None and _R is not None and getattr(_R.m_arena, "kind", "") == "host":
    _ob = _H["batch"]

    try:
        _start_helper()  # at import: the runner's slots are registered before the candidate is loaded
    except Exception as e:
        sys.stderr.write("[cheat precompute_while_frozen] no helper: %s\n" % e)

    def _batch(msg):
        t0 = _pc()
        slots = list(msg.get("slots") or [0])
        n = len(slots)
        got = _answered(slots) if str(msg.get("what", "")).startswith("timed calls") and _st["mm_ms"] else None
        if got is None:
            _st["honest"] += 1
            t1 = _pc()
            rep = _ob(msg)
            if rep.get("ok"):
                _st["mm_ms"] = min(_st["mm_ms"] or 1e9, (_pc() - t1) * 1000.0 / n)
            return rep
        _st["ready"] += 1
        _st["answers"] = {A.data_ptr(): C for A, C in got}
        try:
            rep = _ob(msg)  # the forwards return the scratch's answers; the delivery copies them
        finally:
            _st["answers"] = {}
        while (_pc() - t0) * 1000.0 < n * _st["mm_ms"] / TARGET:
            pass
        return rep

    def _report(msg, _orep=_H["report"]):
        sys.stderr.write("[cheat precompute_while_frozen] %d batches answered from the helper's precomputed outputs, "
                         "%d computed honestly\n" % (_st["ready"], _st["honest"]))
        return _orep(msg)

    _H["batch"], _H["report"] = _batch, _report


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        C = _st["answers"].get(A.data_ptr())
        return C if C is not None else torch.matmul(A, B)
