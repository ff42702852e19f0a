# SPDX-License-Identifier: MIT
"""Device memory two processes share by file descriptor (CUDA's virtual memory management API).

The judge allocates a region with cuMemCreate, exports it as a POSIX file descriptor and hands that
to the runner over their socket (SCM_RIGHTS); the runner imports and maps it. A file descriptor is a
capability: the runner can map what it was given and nothing else of the judge's (a legacy CUDA IPC
handle is 64 bytes that can be guessed or replayed; an fd cannot be forged, and it crosses user ids
and PID namespaces). Both sides see the region as one uint8 tensor on the device (through
__cuda_array_interface__), so the judge's D2D copies and the runner's reads cost what device memory
costs: no host round trip.

The mapping stays for the life of the process (an evaluation's processes are one-shot): tensors
viewing it may be alive anywhere, and unmapping under them would be a use-after-free on the device.
"""
import ctypes
import os

import torch

CUDA_SUCCESS = 0
CU_MEM_ALLOCATION_TYPE_PINNED = 1
CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR = 1
CU_MEM_LOCATION_TYPE_DEVICE = 1
CU_MEM_ACCESS_FLAGS_PROT_READWRITE = 3
CU_MEM_ALLOC_GRANULARITY_RECOMMENDED = 1


class DeviceMemoryError(RuntimeError):
    """The driver refused (no VMM support, no fd export, out of memory): the caller falls back."""


class _Location(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("id", ctypes.c_int)]


class _AllocFlags(ctypes.Structure):
    _fields_ = [("compressionType", ctypes.c_ubyte), ("gpuDirectRDMACapable", ctypes.c_ubyte),
                ("usage", ctypes.c_ushort), ("reserved", ctypes.c_ubyte * 4)]


class _Prop(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("requestedHandleTypes", ctypes.c_int), ("location", _Location),
                ("win32HandleMetaData", ctypes.c_void_p), ("allocFlags", _AllocFlags)]


class _AccessDesc(ctypes.Structure):
    _fields_ = [("location", _Location), ("flags", ctypes.c_int)]


_lib = None


def _cuda():
    global _lib
    if _lib is None:
        try:
            _lib = ctypes.CDLL("libcuda.so.1")
        except OSError as e:
            raise DeviceMemoryError("no CUDA driver library: %s" % e)
    return _lib


def _check(what, rc):
    if rc != CUDA_SUCCESS:
        name = ctypes.c_char_p()
        try:
            _cuda().cuGetErrorName(rc, ctypes.byref(name))
        except Exception:
            pass
        raise DeviceMemoryError("%s failed: %s (%d)" % (what, (name.value or b"?").decode(), rc))


def _prop(device):
    p = _Prop()
    p.type = CU_MEM_ALLOCATION_TYPE_PINNED
    p.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR
    p.location.type = CU_MEM_LOCATION_TYPE_DEVICE
    p.location.id = device
    return p


def granularity(device):
    g = ctypes.c_size_t()
    _check("cuMemGetAllocationGranularity", _cuda().cuMemGetAllocationGranularity(
        ctypes.byref(g), ctypes.byref(_prop(device)), CU_MEM_ALLOC_GRANULARITY_RECOMMENDED))
    return int(g.value)


class _Cai:
    """A __cuda_array_interface__ over raw device bytes (torch.as_tensor keeps this object, and so the
    mapping's owner, alive as long as any view of it)."""

    def __init__(self, ptr, size, owner):
        self.owner = owner
        self.__cuda_array_interface__ = {"shape": (size,), "typestr": "|u1", "data": (ptr, False),
                                         "version": 2, "strides": None}


class SharedDeviceMemory:
    """One exportable device region, mapped read-write in this process."""

    def __init__(self, size, device_index, handle, ptr):
        self.size, self.device_index, self.m_handle, self.m_ptr = size, device_index, handle, ptr

    @classmethod
    def allocate(cls, size, device_index=None):
        """A new region of at least `size` bytes on the device (rounded up to the driver's granularity)."""
        torch.cuda.init()
        dev = torch.cuda.current_device() if device_index is None else int(device_index)
        with torch.cuda.device(dev):
            torch.empty(1, device="cuda")  # the primary context is current on this thread
            g = granularity(dev)
            size = max(g, (int(size) + g - 1) // g * g)
            handle = ctypes.c_ulonglong()
            _check("cuMemCreate", _cuda().cuMemCreate(ctypes.byref(handle), ctypes.c_size_t(size),
                                                      ctypes.byref(_prop(dev)), ctypes.c_ulonglong(0)))
            ptr = _map(handle, size, dev)
        return cls(size, dev, handle, ptr)

    @classmethod
    def import_fd(cls, fd, size, device_index=None):
        """Maps a region another process exported (the fd is closed here once imported)."""
        torch.cuda.init()
        dev = torch.cuda.current_device() if device_index is None else int(device_index)
        with torch.cuda.device(dev):
            torch.empty(1, device="cuda")
            handle = ctypes.c_ulonglong()
            try:
                _check("cuMemImportFromShareableHandle", _cuda().cuMemImportFromShareableHandle(
                    ctypes.byref(handle), ctypes.c_void_p(int(fd)), CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR))
            finally:
                try:
                    os.close(fd)
                except OSError:
                    pass
            g = granularity(dev)
            size = max(g, (int(size) + g - 1) // g * g)
            ptr = _map(handle, size, dev)
        return cls(size, dev, handle, ptr)

    def export_fd(self):
        """A new file descriptor for this region (the receiver owns it)."""
        fd = ctypes.c_int(-1)
        _check("cuMemExportToShareableHandle", _cuda().cuMemExportToShareableHandle(
            ctypes.byref(fd), self.m_handle, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, ctypes.c_ulonglong(0)))
        return fd.value

    def tensor(self):
        """The whole region as a uint8 tensor on the device."""
        return torch.as_tensor(_Cai(self.m_ptr, self.size, self), device=torch.device("cuda", self.device_index))


def _map(handle, size, dev):
    lib = _cuda()
    ptr = ctypes.c_ulonglong()
    _check("cuMemAddressReserve", lib.cuMemAddressReserve(ctypes.byref(ptr), ctypes.c_size_t(size),
                                                          ctypes.c_size_t(0), ctypes.c_ulonglong(0),
                                                          ctypes.c_ulonglong(0)))
    _check("cuMemMap", lib.cuMemMap(ptr, ctypes.c_size_t(size), ctypes.c_size_t(0), handle, ctypes.c_ulonglong(0)))
    desc = _AccessDesc()
    desc.location.type = CU_MEM_LOCATION_TYPE_DEVICE
    desc.location.id = dev
    desc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE
    _check("cuMemSetAccess", lib.cuMemSetAccess(ptr, ctypes.c_size_t(size), ctypes.byref(desc), ctypes.c_size_t(1)))
    return ptr.value


# ---- a runner's own allocations, opened by the judge (kwb_worker.handoff) ----------------------------------
# The other direction: the candidate's outputs lie in its runner's allocations (torch's caching allocator), and the
# judge copies them out itself. A legacy IPC handle names one cudaMalloc allocation; the judge opens it read-only in
# spirit (it only ever copies from it), learns the allocation's true extent from the driver, never from the runner,
# and keeps it open for the rest of the evaluation.
CU_POINTER_ATTRIBUTE_BUFFER_ID = 20
CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS = 1
IPC_HANDLE_BYTES = 64


class _IpcHandle(ctypes.Structure):
    """CUipcMemHandle: 64 opaque bytes, passed by value to cuIpcOpenMemHandle."""
    _fields_ = [("reserved", ctypes.c_char * IPC_HANDLE_BYTES)]


def allocation_of(ptr):
    """(base, size, buffer id) of the allocation holding device address `ptr` in this process; the id changes when
    the allocation at that base is freed and another made there."""
    lib = _cuda()
    base, size, bid = ctypes.c_ulonglong(), ctypes.c_size_t(), ctypes.c_ulonglong()
    _check("cuMemGetAddressRange", lib.cuMemGetAddressRange_v2(ctypes.byref(base), ctypes.byref(size),
                                                               ctypes.c_ulonglong(int(ptr))))
    _check("cuPointerGetAttribute", lib.cuPointerGetAttribute(ctypes.byref(bid), CU_POINTER_ATTRIBUTE_BUFFER_ID,
                                                              ctypes.c_ulonglong(int(ptr))))
    return int(base.value), int(size.value), int(bid.value)


def ipc_handle(base):
    """The IPC handle (bytes) of the allocation starting at `base` in this process."""
    h = _IpcHandle()
    _check("cuIpcGetMemHandle", _cuda().cuIpcGetMemHandle(ctypes.byref(h), ctypes.c_ulonglong(int(base))))
    return ctypes.string_at(ctypes.addressof(h), IPC_HANDLE_BYTES)


def ipc_open(handle):
    """Maps another process's allocation from its IPC handle: (pointer here, the allocation's size as the driver
    says). Raises DeviceMemoryError for a handle that opens nothing."""
    if not isinstance(handle, (bytes, bytearray)) or len(handle) != IPC_HANDLE_BYTES:
        raise DeviceMemoryError("an IPC handle is %d bytes" % IPC_HANDLE_BYTES)
    lib = _cuda()
    fn = getattr(lib, "cuIpcOpenMemHandle_v2", None) or lib.cuIpcOpenMemHandle
    ptr = ctypes.c_ulonglong()
    h = _IpcHandle.from_buffer_copy(bytes(handle))
    _check("cuIpcOpenMemHandle", fn(ctypes.byref(ptr), h, ctypes.c_uint(CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS)))
    base, size = ctypes.c_ulonglong(), ctypes.c_size_t()
    try:
        _check("cuMemGetAddressRange", lib.cuMemGetAddressRange_v2(ctypes.byref(base), ctypes.byref(size), ptr))
    except DeviceMemoryError:
        ipc_close(ptr.value)
        raise
    return int(ptr.value), int(size.value) - (int(ptr.value) - int(base.value))


def ipc_close(ptr):
    try:
        _cuda().cuIpcCloseMemHandle(ctypes.c_ulonglong(int(ptr)))
    except Exception:
        pass


def device_bytes(ptr, size, owner, device_index):
    """`size` bytes at device address `ptr` as a uint8 tensor (keeping `owner` alive as long as any view)."""
    return torch.as_tensor(_Cai(ptr, size, owner), device=torch.device("cuda", device_index))
