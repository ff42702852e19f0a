# SPDX-License-Identifier: MIT
"""How a candidate's outputs leave its process: it says where they lie, and the judge copies them itself.

A delivery run by the candidate's runner is code in the candidate's process, and the copy it makes is plumbing
subtracted from every lane: a candidate that patched it could fuse work into it (red team 5: an erasure code that
rebuilt inputs the judge had overwritten, relu_big 3.55x against its honest control's 2.44x; a private copy of
small inputs, 1.30x). So on the candidate's lane the runner only reports, when its batch answers, where each call's
outputs lie (`Reporter`, in the runner), and the judge copies them into its arena (`Fetcher`, in the judge), inside
the frame, in every frame of that lane alike (dry ones included, before any candidate code exists):

- **GPU**: through legacy CUDA IPC handles of the runner's allocations, opened once by the judge and kept; their
  extent comes from the driver, never from the runner. The runner keeps running: a GPU runs one context at a time,
  so nothing the candidate still does overlaps the judge's copy, and what it leaves running after the frame is
  lingering work (integrity.py).
- **CPU**: the runner is stopped first (its threads could otherwise compute ahead of the judge's read), then read
  with process_vm_readv. A runner that made itself unreadable is a crash.

What the runner reports is untrusted: a pointer outside what the judge can read is a crash, and memory that holds
something else gives wrong outputs, which the checked rounds refuse. The reference's lane (the task's own code,
trusted) keeps the runner's own delivery (runner.deliver); the lanes' difference is in the plumbing each lane
measures before any candidate is imported (judge.lane_offset).
"""
import bisect
import ctypes
import os

import torch

from .arena import ALIGN, LayoutError, dtype_of, _elsize
from .failures import Failure

MAX_SEGMENTS = 4096  # allocations of the runner's the judge keeps open (a runner reporting more is a crash)
MAX_VIEWS = 1 << 14  # cached views (source and destination), per lane
IOV_MAX = 1024


def _dt(t):
    return str(t.dtype).replace("torch.", "")


def align(n):
    return (n + ALIGN - 1) // ALIGN * ALIGN


class Reporter:
    """The runner's side: where each output of a batch lies. Outputs that the judge could not read where they are
    (a strided view, another device, memory without an IPC handle) are copied first into plain tensors of the
    runner's own: an honest cost of the candidate's, inside its frame."""

    def __init__(self, device, arena):
        self.m_cuda = device.type == "cuda"
        self.m_device = device
        t = arena.m_bytes
        self.m_arena = (t.data_ptr(), arena.size)
        self.m_segs = {}  # base -> (size, buffer id): allocations whose handle the judge has been sent
        self.m_bases = []  # sorted bases of m_segs

    def report(self, flats, keep):
        """One entry list per call: {"value": v}, {"arena": offset, dtype, shape} (an output inside the arena: a view
        of an input) or {"ptr": address, dtype, shape}; and the allocations the judge has not been told of yet, each
        {"base", "size", "handle"} (GPU). `keep` gets every tensor that must stay alive until the judge has copied."""
        outs, segs, touched = [], [], {}
        for flat in flats:
            calls = []
            for i, v in enumerate(flat):
                if isinstance(v, torch.Tensor):
                    calls.append(self._locate(v, keep, segs, touched))
                elif v is None or isinstance(v, (bool, int, float, str)):
                    calls.append({"value": v})
                else:
                    raise Failure("shape_mismatch", "output %d is a %s, not a tensor" % (i, type(v).__name__))
            outs.append(calls)
        if self.m_cuda:
            self._verify(touched, segs)
        return outs, segs

    def _locate(self, v, keep, segs, touched):
        t = v.detach()
        if t.device != self.m_device:
            t = t.to(self.m_device)
        if not t.is_contiguous():
            t = t.contiguous()
        keep.append(t)
        e = {"dtype": _dt(t), "shape": list(t.shape)}
        n = t.numel() * t.element_size()
        p = t.data_ptr()
        if n == 0:
            e["ptr"] = 0
            return e
        a0, asize = self.m_arena
        if a0 <= p and p + n <= a0 + asize:
            e["arena"] = p - a0
            return e
        if self.m_cuda:
            base = self._segment(p, n, t, keep, segs)
            if base is None:  # no IPC handle for that memory: a plain allocation of torch's
                t = t.clone()
                keep.append(t)
                p = t.data_ptr()
                base = self._segment(p, n, t, keep, segs)
                if base is None:
                    raise Failure("crash", "an output lies in device memory that cannot be shared with the judge")
            touched[base] = True
        e["ptr"] = p
        return e

    def _segment(self, p, n, t, keep, segs):
        """The base of the allocation holding [p, p + n), its handle queued in `segs` when new (None: no handle)."""
        i = bisect.bisect_right(self.m_bases, p) - 1
        if i >= 0:
            base = self.m_bases[i]
            size = self.m_segs[base][0]
            if p + n <= base + size:
                return base
        from . import devmem

        try:
            base, size, bid = devmem.allocation_of(p)
            if p + n > base + size:
                return None
            handle = devmem.ipc_handle(base)
        except devmem.DeviceMemoryError:
            return None
        self._remember(base, size, bid)
        segs.append({"base": base, "size": size, "handle": handle.hex()})
        return base

    def _remember(self, base, size, bid):
        for b in [b for b in self.m_bases if b < base + size and base < b + self.m_segs[b][0]]:
            del self.m_segs[b]  # an allocation freed, and another made over its addresses
        self.m_segs[base] = (size, bid)
        self.m_bases = sorted(self.m_segs)

    def _verify(self, touched, segs):
        """Every allocation this batch's outputs lie in is still the one the judge opened (torch.cuda.empty_cache()
        and a new allocation at the same address would leave the judge reading the old one)."""
        from . import devmem

        fresh = {s["base"] for s in segs}
        for base in touched:
            if base in fresh:
                continue
            size, bid = self.m_segs[base]
            try:
                now = devmem.allocation_of(base)
            except devmem.DeviceMemoryError:
                now = None
            if now != (base, size, bid):
                del self.m_segs[base]
                self.m_bases = sorted(self.m_segs)
                try:
                    nb, ns, nbid = devmem.allocation_of(base)
                    handle = devmem.ipc_handle(nb)
                except devmem.DeviceMemoryError:
                    raise Failure("crash", "an output's device memory was freed before the judge could copy it")
                self._remember(nb, ns, nbid)
                segs.append({"base": nb, "size": ns, "handle": handle.hex()})


class _Iov(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]


_libc = None


def _process_vm_readv():
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(None, use_errno=True)
        _libc.process_vm_readv.restype = ctypes.c_ssize_t
        _libc.process_vm_readv.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_ulong, ctypes.c_void_p,
                                           ctypes.c_ulong, ctypes.c_ulong]
    return _libc.process_vm_readv


class Fetcher:
    """The judge's side, one per candidate lane: copies a batch's reported outputs into the lane's arena, from each
    call's base (its outputs one after the other, aligned, as the runner's own delivery lays them), and returns their
    layouts. Every failure is the candidate's (a crash or a shape mismatch)."""

    def __init__(self, arena, device, pid):
        self.m_arena = arena
        self.m_cuda = device.type == "cuda"
        self.m_device = device
        self.m_pid = pid
        self.m_segs = {}  # the runner's base -> (its size, pointer here)
        self.m_opened = 0
        self.m_bases = []
        self.m_src = {}  # (ptr, dtype, shape) -> view of the runner's memory (GPU)
        self.m_dst = {}  # (off, dtype, shape) -> view of the arena
        self.opened_ms = 0.0  # time spent opening handles in the last fetch (not the candidate's: the judge's own)

    def open_segments(self, segs):
        """Maps allocations the runner reports (GPU), timing it (Fetcher.opened_ms)."""
        import time

        from . import devmem

        t0 = time.perf_counter()
        if not isinstance(segs, list):
            raise Failure("crash", "the candidate's process reported its output memory malformed")
        for s in segs:
            try:
                base, handle = int(s["base"]), bytes.fromhex(s["handle"])
            except (KeyError, TypeError, ValueError):
                raise Failure("crash", "the candidate's process reported its output memory malformed")
            if self.m_opened >= MAX_SEGMENTS:
                raise Failure("crash", "the candidate's outputs lie in more than %d allocations" % MAX_SEGMENTS)
            try:
                ptr, size = devmem.ipc_open(handle)
            except devmem.DeviceMemoryError as e:
                raise Failure("crash", "an output's device memory could not be opened by the judge (%s)" % e)
            self.m_opened += 1  # an allocation the runner freed stays mapped here: its old mapping is kept, unused
            for b in [b for b in self.m_bases if b < base + size and base < b + self.m_segs[b][0]]:
                del self.m_segs[b]
            self.m_segs[base] = (size, ptr)
            self.m_bases = sorted(self.m_segs)
            self.m_src = {}
        self.opened_ms = (time.perf_counter() - t0) * 1000.0

    def fetch(self, outs, bases, ends):
        """Copies every call's outputs to its base (each within [base, end)); returns one layout per call."""
        if not isinstance(outs, list) or len(outs) != len(bases):
            raise Failure("crash", "the candidate's process reported other outputs than it was asked for")
        layouts, dsts, srcs, iov = [], [], [], []
        for calls, base, end in zip(outs, bases, ends):
            if not isinstance(calls, list):
                raise Failure("crash", "the candidate's process reported its outputs malformed")
            layout, off = [], base
            for e in calls:
                if not isinstance(e, dict):
                    raise Failure("crash", "the candidate's process reported its outputs malformed")
                if "value" in e:
                    v = e["value"]
                    if v is not None and not isinstance(v, (bool, int, float, str)):
                        raise Failure("crash", "the candidate's process reported a value of type %s"
                                      % type(v).__name__)
                    layout.append({"value": v})
                    continue
                dt, shape = e.get("dtype"), e.get("shape")
                try:
                    dtype = dtype_of(dt)
                except LayoutError:
                    raise Failure("shape_mismatch", "an output of dtype %r cannot travel" % (dt,))
                if not isinstance(shape, list) or any(not isinstance(s, int) or isinstance(s, bool) or s < 0
                                                      for s in shape):
                    raise Failure("crash", "the candidate's process reported an output's shape malformed")
                count = 1
                for s in shape:
                    count *= s
                size = count * _elsize(dtype)
                if off + size > end:
                    raise Failure("shape_mismatch", "the outputs do not fit where the reference's go (%d bytes from "
                                                    "offset %d)" % (size, off))
                layout.append({"off": off, "dtype": dt, "shape": list(shape)})
                if size:
                    dst = self._dst(off, dtype, shape)
                    if self.m_cuda or "arena" in e:
                        srcs.append(self._src(e, dtype, shape, size))
                        dsts.append(dst)
                    else:
                        iov.append((dst.data_ptr(), self._ptr(e), size))
                off += align(size)
            layouts.append(layout)
        if dsts:
            self._copy(dsts, srcs)
        if iov:
            self._readv(iov)
        return layouts

    def _ptr(self, e):
        p = e.get("ptr")
        if not isinstance(p, int) or isinstance(p, bool) or p <= 0:
            raise Failure("crash", "the candidate's process reported an output's address malformed")
        return p

    def _dst(self, off, dtype, shape):
        key = (off, dtype, tuple(shape))
        v = self.m_dst.get(key)
        if v is None:
            v = self.m_arena.view(off, dtype, shape)
            if len(self.m_dst) < MAX_VIEWS:
                self.m_dst[key] = v
        return v

    def _src(self, e, dtype, shape, size):
        if "arena" in e:  # a view of the arena (an input's, in a task whose output is one): copied out first
            a = e["arena"]
            if not isinstance(a, int) or isinstance(a, bool) or a < 0 or a + size > self.m_arena.size:
                raise Failure("crash", "the candidate's process reported an output outside its arena")
            return self.m_arena.m_bytes[a:a + size].clone().view(dtype).view(shape)
        p = self._ptr(e)
        key = (p, dtype, tuple(shape))
        v = self.m_src.get(key)
        if v is not None:
            return v
        i = bisect.bisect_right(self.m_bases, p) - 1
        if i < 0:
            raise Failure("crash", "an output lies outside the memory the candidate's process showed the judge")
        base = self.m_bases[i]
        seg_size, here = self.m_segs[base]
        if p + size > base + seg_size:
            raise Failure("crash", "an output lies outside the memory the candidate's process showed the judge")
        from . import devmem

        v = devmem.device_bytes(here + (p - base), size, self, self.m_device.index or 0).view(dtype).view(shape)
        if len(self.m_src) < MAX_VIEWS:
            self.m_src[key] = v
        return v

    def _copy(self, dsts, srcs):
        foreach = getattr(torch, "_foreach_copy_", None)
        if foreach is not None:
            foreach(dsts, srcs)
        else:
            for d, s in zip(dsts, srcs):
                d.copy_(s)
        if self.m_cuda:
            torch.cuda.synchronize()

    def _readv(self, iov):
        """process_vm_readv, IOV_MAX pieces at a time; anything short of every byte is a crash."""
        fn = _process_vm_readv()
        for k in range(0, len(iov), IOV_MAX):
            part = iov[k:k + IOV_MAX]
            local, remote = (_Iov * len(part))(), (_Iov * len(part))()
            want = 0
            for j, (dst, src, n) in enumerate(part):
                local[j].base, local[j].len = dst, n
                remote[j].base, remote[j].len = src, n
                want += n
            got = fn(self.m_pid, local, len(part), remote, len(part), 0)
            if got != want:
                err = ctypes.get_errno()
                raise Failure("crash", "the judge could not read the candidate's outputs from its process (%s)" % (
                    os.strerror(err) if got < 0 else "%d of %d bytes" % (got, want)))
