import ctypes, os, mmap, time, sys, torch, signal
sys.path.insert(0, "/work/main/core/eval/worker")
from kwb_worker.handoff import _process_vm_readv, _Iov
libc = ctypes.CDLL(None, use_errno=True)
libc.madvise.argtypes=[ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
SIZE = int(sys.argv[1]) if len(sys.argv)>1 else 64<<20
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    # child: buffers
    a = torch.randn(SIZE//4)  # heap/mmap 4K
    mm = mmap.mmap(-1, SIZE + (2<<20))
    base = ctypes.addressof(ctypes.c_char.from_buffer(mm))
    al = (base + (2<<20)-1) // (2<<20) * (2<<20)
    print("madvise", libc.madvise(al, SIZE, 14)); 
    hb = (ctypes.c_char * SIZE).from_address(al)
    th = torch.frombuffer(hb, dtype=torch.float32); th.copy_(a)
    z = torch.empty(SIZE//4)  # untouched -> zero page
    fd = os.memfd_create("x"); os.ftruncate(fd, SIZE); sm = mmap.mmap(fd, SIZE)
    ts = torch.frombuffer(sm, dtype=torch.float32); ts.copy_(a)
    os.write(w, ("%d %d %d %d\n" % (a.data_ptr(), th.data_ptr(), z.data_ptr(), ts.data_ptr())).encode())
    time.sleep(1000)
    os._exit(0)
line = b""
while not line.endswith(b"\n"): line += os.read(r, 100)
ptrs = [int(x) for x in line.split()]
os.kill(pid, signal.SIGSTOP)
dst = torch.empty(SIZE//4); dst.fill_(1)
fn = _process_vm_readv()
def readv(src):
    l, rm = (_Iov*1)(), (_Iov*1)()
    l[0].base, l[0].len = dst.data_ptr(), SIZE
    rm[0].base, rm[0].len = src, SIZE
    t=time.perf_counter(); g = fn(pid, l, 1, rm, 1, 0); t=time.perf_counter()-t
    assert g == SIZE, g
    return t*1000
for name, p in zip(["heap4k", "thp", "zero", "shmem"], ptrs):
    ts = sorted(readv(p) for _ in range(15))
    print("%-7s min %.3f med %.3f ms" % (name, ts[0], ts[7]))
src = torch.randn(SIZE//4)
ts=[]
for _ in range(15):
    t=time.perf_counter(); c = src.clone(); dst.copy_(c); ts.append((time.perf_counter()-t)*1000); del c
ts.sort(); print("clone+copy min %.3f med %.3f" % (ts[0], ts[7]))
ts=[]
for _ in range(15):
    t=time.perf_counter(); dst.copy_(src); ts.append((time.perf_counter()-t)*1000)
ts.sort(); print("copy min %.3f med %.3f" % (ts[0], ts[7]))
grep = open("/proc/%d/smaps_rollup"%pid).read()
print([l for l in grep.splitlines() if "AnonHuge" in l])
os.kill(pid, 9)
