# SPDX-License-Identifier: MIT
"""How a candidate's outputs leave its process: it says where they lie, and the judge copies them itself.

A delivery run by the candidate's runner is code in the candidate's process, and the copy it makes is plumbing
subtracted from every lane: a candidate that patched it could fuse work into it (red team 5: an erasure code that
rebuilt inputs the judge had overwritten, relu_big 3.55x against its honest control's 2.44x; a private copy of
small inputs, 1.30x). So on the candidate's lane the runner only reports, when its batch answers, where each call's
outputs lie (`Reporter`, in the runner), and the judge copies them into its arena (`Fetcher`, in the judge), inside
the frame, in every frame of that lane alike (dry ones included, before any candidate code exists):

- **GPU**: through legacy CUDA IPC handles of the runner's allocations, opened once by the judge and kept; their
  extent comes from the driver, never from the runner. Opening one is inside the frame (it was left out at first,
  and red team 6 pointed out that a candidate reporting a new allocation every frame could run queued kernels
  while the judge opened it, uncounted). The runner keeps running: a GPU runs one context at a time,
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

from .arena import LayoutError, _align as align, _elsize, dtype_of
from .failures import Failure

MAX_SEGMENTS = 4096  # allocations of the runner's the judge keeps open (a runner reporting more is a crash)
MAX_VIEWS = 1 << 14  # cached views (source and destination), per lane
IOV_MAX = 1024
STEADY_AFTER = 32  # Reporter._verify: allocations to check in a batch beyond which torch's own are listed (once a change)


class Reporter:
    """The runner's side: where each output of a batch lies. Outputs that the judge could not read where they are
    (a strided view, another device, memory without an IPC handle) are copied first into plain tensors of the
    runner's own: an honest cost of the candidate's, inside its frame.

    Its work is plumbing in every frame of the candidate's lane, per call: measured on an H200 at 800 one-output
    calls a batch it was 5.2 ms for fresh outputs against 2.7 ms for a dry batch's kept ones, of which 1.9 ms was
    asking the driver, every batch, whether each of the ~400 allocations the outputs lay in was still the one the
    judge had opened. A dry frame's plumbing is subtracted from the candidate's (judge.lane_offset), so the
    difference was charged to the candidate: own copies of tiny tasks came out 3-7% slow. Now an allocation of
    torch's caching allocator is asked about again only after that allocator made or freed an allocation
    (its own counters say so), and the loop per output is kept short."""

    def __init__(self, device, arena):
        self.m_cuda = device.type == "cuda"
        self.m_device = device
        self.m_index = (device.index if device.index is not None else torch.cuda.current_device()) \
            if self.m_cuda else -1
        t = arena.m_bytes
        self.m_arena = (t.data_ptr(), arena.size)
        self.m_segs = {}  # base -> (size, buffer id): allocations whose handle the judge has been sent
        self.m_bases = []  # sorted bases of m_segs
        self.m_counts = None  # torch's allocator's segment counters (made, freed) when m_owned was read
        self.m_owned = None  # the bases of torch's allocator's segments then (None: not read yet)
        self.m_steady = set()  # those of them checked since

    def report(self, flats, keep):
        """Where a batch's outputs lie, compactly (a batch may hold thousands of calls, and this is plumbing):
        {"sigs": [signature, ...], "calls": [[signature index, place, ...], ...]}, a signature one entry per output
        ([dtype, shape] for a tensor, ["=", value] for a value), a place per tensor: its address (0: empty), or
        -1 - its offset in the arena (an output inside the arena: a view of an input); and the allocations the judge
        has not been told of yet, each {"base", "size", "handle"} (GPU). `keep` gets every tensor made here that must
        stay alive until the judge has copied."""
        sigs, index, calls, segs, touched = [], {}, [], [], set()
        last_key, last_idx = None, None
        tensor, locate = torch.Tensor, self._locate
        for flat in flats:
            if len(flat) == 1 and isinstance(flat[0], tensor):  # the common case, kept short
                v = flat[0]
                key = ((v.dtype, v.shape),)
                if key != last_key:
                    last_key, last_idx = key, self._sig_index(key, flat, index, sigs)
                calls.append([last_idx, locate(v, keep, segs, touched)])
                continue
            key = tuple((v.dtype, v.shape) if isinstance(v, tensor) else ("=", v) for v in flat)
            if key != last_key:
                last_key, last_idx = key, self._sig_index(key, flat, index, sigs)
            call = [last_idx]
            for v in flat:
                if isinstance(v, tensor):
                    call.append(locate(v, keep, segs, touched))
            calls.append(call)
        if self.m_cuda:
            self._verify(touched, segs)
        return {"sigs": sigs, "calls": calls}, segs

    @staticmethod
    def _sig_index(key, flat, index, sigs):
        for i, v in enumerate(flat):
            if not isinstance(v, torch.Tensor) and not (v is None or isinstance(v, (bool, int, float, str))):
                raise Failure("shape_mismatch", "output %d is a %s, not a tensor" % (i, type(v).__name__))
        idx = index.get(key)
        if idx is None:
            idx = index[key] = len(sigs)
            sigs.append([[str(k[0]).replace("torch.", ""), list(k[1])] if k[0] != "=" else list(k) for k in key])
        return idx

    def _locate(self, v, keep, segs, touched):
        t = v
        if not ((t.is_cuda and t.get_device() == self.m_index) if self.m_cuda else t.is_cpu) or \
                not t.is_contiguous():
            t = t.detach().to(self.m_device).contiguous()
            keep.append(t)
        n = t.numel() * t.element_size()
        if n == 0:
            return 0
        p = t.data_ptr()
        a0, asize = self.m_arena
        if a0 <= p and p + n <= a0 + asize:
            return -1 - (p - a0)
        if self.m_cuda:
            base = self._segment(p, n, segs)
            if base is None:  # no IPC handle for that memory: a plain allocation of torch's
                t = t.clone()
                keep.append(t)
                p = t.data_ptr()
                base = self._segment(p, n, segs)
                if base is None:
                    raise Failure("crash", "an output lies in device memory that cannot be shared with the judge")
            touched.add(base)
        return p

    def _segment(self, p, n, segs):
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
            self.m_steady.discard(b)
        self.m_segs[base] = (size, bid)
        self.m_bases = sorted(self.m_segs)

    def _steady(self):
        """The bases of torch's caching allocator's segments checked since it last made or freed one (emptied when
        its counters say it did; where they cannot be read, nothing is steady and every allocation is checked every
        batch)."""
        try:
            seg = torch.cuda.memory_stats_as_nested_dict(self.m_index)["segment"]["all"]
            counts = (int(seg["allocated"]), int(seg["freed"]))
        except Exception:
            counts = None
        if counts is None or counts != self.m_counts:
            self.m_counts, self.m_owned, self.m_steady = counts, None, set()
        return self.m_steady

    def _owned(self):
        """The bases of torch's allocator's segments as of its counters' last change (read once then)."""
        if self.m_owned is None:
            self.m_owned = set()
            if self.m_counts is not None:
                try:
                    self.m_owned = {int(s["address"]) for s in torch.cuda.memory_snapshot()
                                    if s.get("device", self.m_index) == self.m_index}
                except Exception:
                    pass
        return self.m_owned

    def _verify(self, touched, segs):
        """Every allocation this batch's outputs lie in is still the one the judge opened (torch.cuda.empty_cache()
        and a new allocation at the same address would leave the judge reading the old one). One of torch's
        allocator's, once checked, holds until that allocator makes or frees an allocation; any other (a CUDA
        extension's own cudaMalloc) is checked every batch. Nothing here is a trust boundary: a candidate that frees
        memory behind torch's back only has the judge read its own old outputs, which the checked rounds refuse."""
        from . import devmem

        steady = self._steady()
        fresh = {s["base"] for s in segs}  # just asked of the driver (_segment)
        check = [b for b in touched if b not in steady and b not in fresh]
        owned = self.m_owned if self.m_owned is not None else \
            self._owned() if len(check) + len(fresh) > STEADY_AFTER else ()
        steady.update(b for b in fresh if b in owned)
        for base in check:
            size, bid = self.m_segs[base]
            try:
                now = devmem.allocation_of(base)
            except devmem.DeviceMemoryError:
                now = None
            if now == (base, size, bid):
                if base in owned:
                    steady.add(base)
                continue
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
        self.m_dst = {}  # (signature, base) -> (layout, views of the arena)
        self.m_sigs = {}  # a reported signature's repr -> Fetcher._sig()
        # the last fetch's outputs outside the arena: (address in the runner, bytes, call index, dtype, shape, where
        # the judge copied it in the arena: valid until the next fetch)
        self.ranges = []

    def open_segments(self, segs):
        """Maps allocations the runner reports (GPU)."""
        from . import devmem

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

    def fetch(self, outs, bases, ends):
        """Copies every call's outputs to its base (each within [base, end)); returns one layout per call."""
        if not isinstance(outs, dict) or not isinstance(outs.get("calls"), list) or len(outs["calls"]) != len(bases) \
                or not isinstance(outs.get("sigs"), list):
            raise Failure("crash", "the candidate's process reported other outputs than it was asked for")
        sigs = [self._sig(s) for s in outs["sigs"]]
        layouts, dsts, srcs, iov = [], [], [], []
        ranges = self.ranges = []
        for k, (call, base, end) in enumerate(zip(outs["calls"], bases, ends)):
            if not isinstance(call, list) or not call or not isinstance(call[0], int) or isinstance(call[0], bool) \
                    or not 0 <= call[0] < len(sigs):
                raise Failure("crash", "the candidate's process reported its outputs malformed")
            sig = sigs[call[0]]
            places = call[1:]
            if len(places) != len(sig[1]):
                raise Failure("crash", "the candidate's process reported its outputs malformed")
            if base + sig[2] > end:
                raise Failure("shape_mismatch", "the outputs do not fit where the reference's go (%d bytes from "
                                                "offset %d)" % (sig[2], base))
            layout, views = self._dst(sig, base)
            layouts.append(layout)
            for (dtype, shape, size), dst, place in zip(sig[1], views, places):
                if not isinstance(place, int) or isinstance(place, bool):
                    raise Failure("crash", "the candidate's process reported an output's address malformed")
                if size == 0:
                    continue
                if place == 0:
                    raise Failure("crash", "the candidate's process reported no address for an output")
                if place > 0:
                    ranges.append((place, size, k, dtype, shape, dst))
                if self.m_cuda or place < 0:
                    srcs.append(self._src(place, dtype, shape, size))
                    dsts.append(dst)
                else:
                    iov.append((dst.data_ptr(), place, size))
        if dsts:
            self._copy(dsts, srcs)
        if iov:
            self._readv(iov)
        return layouts

    def _sig(self, s):
        """A reported signature: (its key, [(dtype, shape, bytes) per tensor], bytes of the call's outputs laid out
        one after the other, aligned, layout entries relative to the call's base)."""
        key = repr(s)
        got = self.m_sigs.get(key)
        if got is not None:
            return got
        if not isinstance(s, list):
            raise Failure("crash", "the candidate's process reported its outputs malformed")
        tensors, rel, off = [], [], 0
        for e in s:
            if isinstance(e, list) and len(e) == 2 and e[0] == "=":
                v = e[1]
                if v is not None and not isinstance(v, (bool, int, float, str)):
                    raise Failure("crash", "the candidate's process reported a value of type %s" % type(v).__name__)
                rel.append({"value": v})
                continue
            if not isinstance(e, list) or len(e) != 2 or not isinstance(e[0], str) or not isinstance(e[1], list) \
                    or any(not isinstance(d, int) or isinstance(d, bool) or d < 0 for d in e[1]):
                raise Failure("crash", "the candidate's process reported an output's type or shape malformed")
            try:
                dtype = dtype_of(e[0])
            except LayoutError:
                raise Failure("shape_mismatch", "an output of dtype %r cannot travel" % (e[0],))
            count = 1
            for d in e[1]:
                count *= d
            size = count * _elsize(dtype)
            tensors.append((dtype, tuple(e[1]), size))
            rel.append({"off": off, "dtype": e[0], "shape": list(e[1])})
            off += align(size)
        got = (key, tensors, off, rel)
        if len(self.m_sigs) < 64:
            self.m_sigs[key] = got
        return got

    def _dst(self, sig, base):
        """The call's layout and views of the arena from `base` (cached per signature and base: the bases are the
        lane's few drawn places)."""
        key = (sig[0], base)
        got = self.m_dst.get(key)
        if got is None:
            layout = [dict(e, off=e["off"] + base) if "off" in e else dict(e) for e in sig[3]]
            views = [self.m_arena.view(e["off"], dtype, shape)
                     for e, (dtype, shape, _) in zip([e for e in layout if "off" in e], sig[1])]
            got = (layout, views)
            if len(self.m_dst) < MAX_VIEWS:
                self.m_dst[key] = got
        return got

    def _src(self, place, dtype, shape, size):
        if place < 0:  # a view of the arena (an input's, in a task whose output is one)
            a = -1 - place
            if a + size > self.m_arena.size:
                raise Failure("crash", "the candidate's process reported an output outside its arena")
            # Copied straight from there: the candidate's inputs and outputs never share a region of its arena (a
            # place reported inside the output region overlaps the copy, which torch refuses: the candidate's crash).
            return self.m_arena.view(a, dtype, shape)
        key = (place, dtype, shape)
        v = self.m_src.get(key)
        if v is not None:
            return v
        i = bisect.bisect_right(self.m_bases, place) - 1
        if i < 0:
            raise Failure("crash", "an output lies outside the memory the candidate's process showed the judge")
        base = self.m_bases[i]
        seg_size, here = self.m_segs[base]
        if place + size > base + seg_size:
            raise Failure("crash", "an output lies outside the memory the candidate's process showed the judge")
        from . import devmem

        v = devmem.device_bytes(here + (place - base), size, self, self.m_device.index or 0).view(dtype).view(shape)
        if len(self.m_src) < MAX_VIEWS:
            self.m_src[key] = v
        return v

    def read(self, place, dtype, shape, size):
        """A copy of what lies at `place` in the runner's memory now (an output reported by an earlier fetch, which
        the runner still holds; on a CPU the runner is stopped)."""
        if self.m_cuda:
            out = self._src(place, dtype, shape, size).clone()
            torch.cuda.synchronize()
            return out
        out = torch.empty(shape, dtype=dtype)
        self._readv([(out.data_ptr(), place, size)])
        return out

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
