# SPDX-License-Identifier: MIT
"""Memory the judge and the candidate's runner share: tensors travel as data, never as claims.

An arena is one region the judge creates and hands to the runner as a file descriptor: host memory (a
sealed memfd) for CPU tasks, device memory (kwb_worker.devmem, CUDA's fd-exported allocations) for GPU
tasks, so a GPU task's data never leaves the GPU. Both sides see it as one uint8 tensor; a layout (a
list of entries) says where each value lies. A layout that comes from the runner is untrusted and is
checked by `read()` (bounds, dtype, size) before anything is read.

Each runner has an arena of its own (its "staging" memory): the judge copies an input set into it
inside its timed frame, the runner's forward reads it there, and the runner copies its outputs back
into it. The runner can write anything there at any time; the judge never computes a reference from
it, and compares what it reads there with its own copies.
"""
import mmap
import os
import warnings

import torch

ALIGN = 256

_DTYPES = {str(d).replace("torch.", ""): d for d in (
    torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.int16,
    torch.int8, torch.uint8, torch.bool, torch.complex64, torch.complex128)}


class LayoutError(ValueError):
    """A layout that does not describe values inside the arena (from a confused or hostile runner)."""


def _align(n):
    return (n + ALIGN - 1) // ALIGN * ALIGN


def nbytes(t):
    return t.numel() * t.element_size()


def tensor_bytes(values):
    """Bytes the tensors among `values` need in an arena (aligned)."""
    return sum(_align(nbytes(v)) for v in values if isinstance(v, torch.Tensor))


class Arena:
    """Host memory (memfd): `Arena(size)` in the judge, `Arena(size, fd=...)` in the runner."""

    kind = "host"

    def __init__(self, size, fd=None, name="kwb-arena"):
        self.size = max(ALIGN, _align(int(size)))
        if fd is None:
            fd = _new_fd(name, self.size)
        self.fd = fd
        self.m_map = mmap.mmap(fd, self.size)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "non-writable buffer": an mmap is writable
            self.m_bytes = torch.frombuffer(self.m_map, dtype=torch.uint8)

    def export_fd(self):
        """The file descriptor to hand to the runner (the judge keeps its own)."""
        return self.fd

    def drop_fd(self):
        """The runner's side, once mapped: its descriptor closed, so that no code in its process can map the arena
        again past the views it was given (blind red team 20 found the memfd among its descriptors, mapped it
        and served a frame's every call from it)."""
        if self.fd is not None:
            try:
                os.close(self.fd)
            except OSError:
                pass
            self.fd = None

    def view(self, off, dtype, shape):
        return self.m_bytes[off:off + _span(dtype, shape)].view(dtype).view(tuple(int(s) for s in shape))

    def own_view(self, off, dtype, shape):
        """A view with a storage of its own, covering its bytes only: what the runner hands a candidate. A slice of
        the arena's one tensor has the whole arena for storage, so `x.storage()` and `torch.as_strided` reached
        every other call's inputs of the batch (blind red team 19: a whole batch served at its first call, with
        no introspection any static rule names)."""
        n = _span(dtype, shape)
        if n == 0:
            return self.view(off, dtype, shape)
        return self._own_bytes(int(off), n).view(dtype).view(tuple(int(s) for s in shape))

    def _own_bytes(self, off, n):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return torch.frombuffer(self.m_map, dtype=torch.uint8, count=n, offset=off)

    def write(self, values, base=0):
        """Copies `values` (tensors on any device, or JSON-able values) from offset `base`; returns the layout."""
        layout, off = [], base
        for v in values:
            if isinstance(v, torch.Tensor):
                t = v.detach()
                dt = str(t.dtype).replace("torch.", "")
                if dt not in _DTYPES:
                    raise LayoutError("dtype %s cannot travel" % dt)
                if off + nbytes(t) > self.size:
                    raise LayoutError("%d bytes do not fit the arena (%d from offset %d)" % (nbytes(t), self.size, off))
                self.view(off, t.dtype, t.shape).copy_(t)
                layout.append({"off": off, "dtype": dt, "shape": list(t.shape)})
                off += _align(nbytes(t))
            else:
                layout.append({"value": v})
        return layout

    def read(self, layout, lo=0, hi=None, own=False):
        """Views (not copies) of the values a layout names, after checking that it lies in [lo, hi); with `own`,
        each with a storage of its own (own_view). Anything wrong with the layout, whatever it trips, is a
        LayoutError (the runner's fault)."""
        try:
            return self._read(layout, lo, hi, own)
        except LayoutError:
            raise
        except Exception as e:
            raise LayoutError("malformed layout (%s: %s)" % (type(e).__name__, str(e)[:100]))

    def _read(self, layout, lo, hi, own=False):
        hi = self.size if hi is None else hi
        if not isinstance(layout, list):
            raise LayoutError("layout is not a list")
        out = []
        for e in layout:
            if not isinstance(e, dict):
                raise LayoutError("layout entry is not an object")
            if "value" in e and "off" not in e:
                v = e["value"]
                if v is not None and not isinstance(v, (bool, int, float, str)):
                    raise LayoutError("non-tensor value of type %s" % type(v).__name__)
                out.append(v)
                continue
            dt, shape, off = e.get("dtype"), e.get("shape"), e.get("off")
            if not isinstance(dt, str) or dt not in _DTYPES or not isinstance(shape, list) or not isinstance(off, int) \
                    or isinstance(off, bool) or any(not isinstance(s, int) or isinstance(s, bool) or s < 0 for s in shape):
                raise LayoutError("malformed tensor entry %r" % (e,))
            end = off + _span(_DTYPES[dt], shape)
            if off < lo or end > hi or off % ALIGN:
                raise LayoutError("tensor entry [%d, %d) outside its region [%d, %d)" % (off, end, lo, hi))
            out.append((self.own_view if own else self.view)(off, _DTYPES[dt], shape))
        return out

    def close(self):
        self.m_bytes = None
        if self.kind != "host":
            return
        try:
            self.m_map.close()
        except (BufferError, ValueError):
            pass  # views still alive: the mapping goes with the process
        self.drop_fd()


class DeviceArena(Arena):
    """Device memory exported by file descriptor (kwb_worker.devmem): `DeviceArena(size)` in the judge,
    `DeviceArena(size, fd=...)` in the runner. Mapped for the life of the process."""

    kind = "device"

    def __init__(self, size, fd=None, name="kwb-arena"):
        from .devmem import SharedDeviceMemory

        size = max(ALIGN, _align(int(size)))
        self.fd = None
        if fd is None:
            self.m_mem = SharedDeviceMemory.allocate(size)
        else:
            self.m_mem = SharedDeviceMemory.import_fd(fd, size)
        self.size = self.m_mem.size  # the driver's granularity (2 MiB): the runner maps the whole allocation
        self.m_bytes = self.m_mem.tensor()

    def _own_bytes(self, off, n):
        """As Arena's, on the device: a __cuda_array_interface__ over the view's bytes only."""
        from .devmem import _Cai

        return torch.as_tensor(_Cai(self.m_mem.m_ptr + off, n, self.m_mem),
                               device=torch.device("cuda", self.m_mem.device_index))

    def export_fd(self):
        """A new file descriptor for the runner (the caller closes its copy once it is sent)."""
        return self.m_mem.export_fd()


def open_arena(kind, size, fd):
    """The runner's side of an arena the judge made."""
    if kind == "device":
        return DeviceArena(size, fd=fd)
    if kind == "host":
        return Arena(size, fd=fd)
    raise LayoutError("unknown arena kind %r" % (kind,))


_ELSIZE = {}


def _span(dtype, shape):
    """The bytes a tensor of `dtype` and `shape` takes."""
    count = 1
    for s in shape:
        count *= int(s)
    return count * _elsize(dtype)


def _elsize(dtype):
    if dtype not in _ELSIZE:
        _ELSIZE[dtype] = torch.empty(0, dtype=dtype).element_size()
    return _ELSIZE[dtype]


def _new_fd(name, size):
    """A memfd of `size` bytes sealed against shrinking and growing: the runner holds the same file,
    and a truncated arena would make the judge's next read a SIGBUS."""
    if not hasattr(os, "memfd_create"):
        fd = _tmpfile_fd()
        os.ftruncate(fd, size)
        return fd
    fd = os.memfd_create(name, getattr(os, "MFD_ALLOW_SEALING", 2))
    os.ftruncate(fd, size)
    try:
        import fcntl

        fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SEAL)
    except (ImportError, AttributeError, OSError):
        pass
    return fd


def _tmpfile_fd():
    import tempfile

    fd, path = tempfile.mkstemp(prefix="kwb-arena-")
    os.unlink(path)
    return fd


def dtype_of(name):
    if name not in _DTYPES:
        raise LayoutError("unknown dtype %r" % name)
    return _DTYPES[name]
