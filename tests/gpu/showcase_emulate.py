# SPDX-License-Identifier: MIT
"""CPU check of the showcase kernels' logic, no GPU and no Triton needed.

A small emulator of the Triton subset the kernels use runs each program of a launch as a Python
thread (real concurrency, atomics under a lock), so indexing, gate maths, direction handling,
the barrier protocol (counter targets, double-buffer slots) and the host code all execute. The
candidates are compared with the PyTorch CPU reference (2 layers, a few time steps, the task's
batch and sizes). It cannot see compiler effects (layouts, registers, memory ordering on the
GPU): tests/gpu/showcase_correctness.py is the check on the real device.

Run:  /usr/bin/python3 tests/gpu/showcase_emulate.py [--steps 4] [--tasks 39,37]   (~30 s)
"""
import importlib.util
import inspect
import os
import sys
import threading
import types

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "resources", "showcase"))
from make_showcase import candidate as showcase_candidate  # noqa: E402  (generated from the sources, not committed)
TASKS = ["39_GRU", "40_GRUHidden", "41_GRUBidirectional", "42_GRUBidirectionalHidden",
         "35_LSTM", "36_LSTMHn", "37_LSTMCn", "38_LSTMBidirectional"]


def _make_triton():
    """Builds fake `triton` and `triton.language` modules backed by torch on the CPU."""
    tls = threading.local()
    lock = threading.Lock()
    tr = types.ModuleType("triton")
    tl = types.ModuleType("triton.language")

    class Ptr:
        def __init__(self, flat, off):
            self.flat, self.off = flat, off

        def __add__(self, x):
            return Ptr(self.flat, self.off + x)

        __radd__ = __add__

    def wrap(a):
        if isinstance(a, torch.Tensor):
            return Ptr(torch.as_strided(a, (a.storage().size(),), (1,), 0), a.storage_offset())
        return a

    class Kernel:
        def __init__(self, fn):
            self.fn = fn
            self.sig = inspect.signature(fn)

        def __getitem__(self, grid):
            def launch(*args, **kw):
                for k in ("num_warps", "launch_cooperative_grid", "num_stages"):
                    kw.pop(k, None)
                self.sig.bind(*args, **kw)  # arity and names as Triton would check them
                wrapped = [wrap(a) for a in args]
                errors = []

                def run(p):
                    tls.pid = (p % grid[0], p // grid[0])
                    try:
                        with torch.no_grad():
                            self.fn(*wrapped, **kw)
                    except BaseException as exc:  # reported by the launching thread
                        errors.append(exc)

                n = grid[0] * (grid[1] if len(grid) > 1 else 1)
                threads = [threading.Thread(target=run, args=(p,)) for p in range(n)]
                for t in threads:
                    t.start()
                for t in threads:
                    t.join()
                if errors:
                    raise errors[0]
            return launch

        def __call__(self, *a, **k):  # a @triton.jit helper called from a kernel
            return self.fn(*a, **k)

    def load(p, mask=None, other=0.0, cache_modifier=None, volatile=False):
        off = torch.as_tensor(p.off)
        if mask is None:
            return p.flat[off].clone()
        mask = torch.broadcast_to(torch.as_tensor(mask), off.shape)
        v = p.flat[torch.where(mask, off, torch.zeros_like(off))]
        return torch.where(mask, v, torch.tensor(other, dtype=v.dtype))

    def store(p, v, mask=None):
        off = torch.as_tensor(p.off)
        v = torch.broadcast_to(torch.as_tensor(v, dtype=p.flat.dtype), off.shape)
        mask = torch.ones(off.shape, dtype=torch.bool) if mask is None else \
            torch.broadcast_to(torch.as_tensor(mask), off.shape)
        p.flat[off[mask]] = v[mask]

    def atomic_add(p, v, sem=None, scope=None):
        with lock:
            old = p.flat[p.off].clone()
            p.flat[p.off] += v
        return old

    def where(c, a, b):
        a = a if isinstance(a, torch.Tensor) else torch.tensor(a, dtype=torch.float32)
        b = b if isinstance(b, torch.Tensor) else torch.tensor(b, dtype=torch.float32)
        return torch.where(c, a, b)

    tl.constexpr = type("constexpr", (), {})
    tl.float32, tl.int32, tl.int64 = torch.float32, torch.int32, torch.int64
    tl.program_id = lambda ax: torch.tensor(tls.pid[ax])
    tl.arange = lambda a, b: torch.arange(a, b)
    tl.zeros = lambda shape, dtype: torch.zeros(shape, dtype=dtype)
    tl.static_range = range
    tl.debug_barrier = lambda: None
    tl.exp = torch.exp
    tl.where = where
    tl.sum = lambda x, axis: x.sum(axis)
    tl.dot = lambda a, b, acc, input_precision=None: acc + a @ b
    tl.minimum = lambda a, b: torch.minimum(torch.as_tensor(a), torch.as_tensor(b))
    tl.maximum = lambda a, b: torch.maximum(torch.as_tensor(a), torch.as_tensor(b))
    tl.load, tl.store, tl.atomic_add = load, store, atomic_add
    tr.language = tl
    tr.jit = lambda fn=None, **kw: Kernel(fn) if fn else (lambda f: Kernel(f))
    tr.cdiv = lambda a, b: (a + b - 1) // b
    tr.next_power_of_2 = lambda n: 1 << max(0, (n - 1).bit_length())
    tr.__version__ = "cpu-emulator"
    return tr, tl


def _load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def check_task(task, steps=4):
    """Max abs error of the emulated candidate against the CPU reference (2 layers)."""
    task_mod = _load(os.path.join(ROOT, "tasks", "level3", task + ".py"), "emu_t" + task[:2])
    cand = _load(showcase_candidate(task), "emu_c" + task[:2])
    cand._CFG["max_spin"] = 200000  # Python threads: a lost arrival shows up in seconds
    args = list(task_mod.get_init_inputs())
    args[2] = 2
    torch.manual_seed(42)
    ref = task_mod.Model(*args)
    torch.manual_seed(42)
    new = cand.ModelNew(*args)
    torch.manual_seed(3)
    xs = task_mod.get_inputs()
    batch_first = "LSTM" in task
    dirs = 2 if "Bidirectional" in task else 1
    xs[0] = (xs[0][:, :steps] if batch_first else xs[0][:steps]).contiguous()
    xs[1:] = [h[:2 * dirs].contiguous() for h in xs[1:]]
    with torch.no_grad():
        torch.manual_seed(9)
        y = new(*xs)
        torch.manual_seed(9)
        y_ref = ref(*xs)
    assert y.shape == y_ref.shape, "%s: shape %s vs %s" % (task, tuple(y.shape), tuple(y_ref.shape))
    last = cand._LAST
    counters_ok = bool((last["cnt"].view(-1, 32)[:, 0] == last["expect"]).all())
    return (y - y_ref).abs().max().item(), counters_ok


def _install():
    """Installs the emulator; False where a real Triton is importable (then use the GPU check)."""
    try:
        import triton
    except ImportError:
        tr, tl = _make_triton()
        sys.modules["triton"], sys.modules["triton.language"] = tr, tl
        return True
    return getattr(triton, "__version__", "") == "cpu-emulator"


def test_showcase_emulated():
    if not _install():
        import pytest
        pytest.skip("a real Triton is installed: tests/gpu/showcase_correctness.py is the check")
    torch.set_num_threads(1)
    for task in TASKS:
        err, counters_ok = check_task(task, steps=3)
        assert err < 1e-5, "%s: max abs error %.3g" % (task, err)
        assert counters_ok, "%s: barrier counters off target" % task


def main(argv):
    if not _install():
        print("SKIP: a real Triton is installed; run tests/gpu/showcase_correctness.py")
        return 0
    torch.set_num_threads(1)
    sys.setswitchinterval(1e-5)
    steps = int(argv[argv.index("--steps") + 1]) if "--steps" in argv else 4
    wanted = argv[argv.index("--tasks") + 1].split(",") if "--tasks" in argv else None
    failed = False
    for task in TASKS:
        if wanted and task[:2] not in wanted:
            continue
        err, counters_ok = check_task(task, steps)
        ok = err < 1e-5 and counters_ok
        failed |= not ok
        print("%-28s %s  max err %.2e  counters %s" % (task, "PASS" if ok else "FAIL", err,
                                                         "ok" if counters_ok else "OFF"), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
