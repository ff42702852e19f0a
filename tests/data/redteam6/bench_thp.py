import ctypes, os, mmap, time, sys, torch, signal
sys.path.insert(0, "/work/main/core/eval/worker")
from kwb_worker.handoff import _process_vm_readv, _Iov
libc = ctypes.CDLL(None, use_errno=True)
libc.madvise.argtypes=[ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes=[ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
SIZE = 128<<20
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    a = torch.randn(SIZE//4)
    p = libc.mmap(None, SIZE + (2<<20), 3, 0x22, -1, 0)
    al = (p + (2<<20)-1) // (2<<20) * (2<<20)
    libc.madvise(al, SIZE, 14)
    th = torch.frombuffer((ctypes.c_char * SIZE).from_address(al), dtype=torch.float32); th.copy_(a)
    os.write(w, ("%d %d\n" % (a.data_ptr(), th.data_ptr())).encode())
    time.sleep(1000); os._exit(0)
line = b""
while not line.endswith(b"\n"): line += os.read(r, 100)
ptrs = [int(x) for x in line.split()]
os.kill(pid, signal.SIGSTOP)
print([l for l in open("/proc/%d/smaps_rollup"%pid).read().splitlines() if "AnonHuge" in l])
dst = torch.empty(SIZE//4); dst.fill_(1)
fn = _process_vm_readv()
def readv(src):
    l, rm = (_Iov*1)(), (_Iov*1)()
    l[0].base, l[0].len = dst.data_ptr(), SIZE
    rm[0].base, rm[0].len = src, SIZE
    t=time.perf_counter(); g = fn(pid, l, 1, rm, 1, 0); t=time.perf_counter()-t
    assert g == SIZE, g
    return t*1000
for rep in range(2):
  for name, p in zip(["heap4k", "thp"], ptrs):
    ts = sorted(readv(p) for _ in range(11))
    print("%-7s min %.2f med %.2f ms" % (name, ts[0], ts[5]))
os.kill(pid, 9)
