# SPDX-License-Identifier: MIT
"""Where the time of one step of the cluster RNN kernel goes (resources/showcase/_body.py).

Times one layer (T = 512, batch 10, hidden 256) of the CUDA cluster kernel in four modes and
prints microseconds per step:
  mode 0  cluster barrier per step (shipped option)        mode 1  st.async + mbarrier hand-off
  mode 2  barrier but no h exchange (probe, wrong result)  mode 3  no synchronisation (probe)
  mode 4  mode 1 polling with test_wait
so the hand-off cost is mode 0 - mode 3 (or 1 - 3) and the compute floor is mode 3. It also
checks modes 0 and 1 against a float64 recurrence on the same gates and against each other.

Run on the GPU machine:  python3 tests/gpu/cluster_rnn_probe.py   (prints figures; not a test)
"""
import importlib.util
import os
import statistics
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "resources", "showcase"))
from make_showcase import candidate as showcase_candidate  # noqa: E402  (generated from the sources, not committed)


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def median_ms(fn, n):
    """Median of n calls of fn, each timed alone with CUDA events."""
    times = []
    for _ in range(n):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        torch.cuda.synchronize()
        times.append(s.elapsed_time(e))
    return statistics.median(times)


def reference(cell, gi, w, bh, h0, c0, T, B, H):
    """float64 recurrence on the same input gates: gi[t, b, G*H] already holds x W_ih^T + biases
    (GRU: + b_hr, b_hz; b_hn is added inside r * (...))."""
    gi, w, h = gi.double(), w.double(), h0[0].double()
    c = c0[0].double() if c0 is not None else None
    out = []
    for t in range(T):
        a = h @ w.t()
        x = gi[t]
        if cell == 3:
            r = torch.sigmoid(x[:, :H] + a[:, :H])
            z = torch.sigmoid(x[:, H:2 * H] + a[:, H:2 * H])
            n = torch.tanh(x[:, 2 * H:] + r * (a[:, 2 * H:] + bh[2 * H:].double()))
            h = (1 - z) * n + z * h
        else:
            i, f, g, o = (x + a).split(H, dim=1)
            c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
            h = torch.sigmoid(o) * torch.tanh(c)
        out.append(h)
    return torch.stack(out)


def build():
    """The candidate module of 39_GRU and its extension, built with every instance the benchmark
    uses (one build, shared with showcase_bench.py through torch's on-disk cache)."""
    bench = load(os.path.join(ROOT, "tests", "bench", "showcase_bench.py"), "showcase_bench")
    mod = load(showcase_candidate("39_GRU"), "cand39")
    mod._CUDA_EXTRA[:] = bench.ALL_INSTANCES
    mod._WAVE_EXTRA[:] = bench.ALL_WAVE
    return mod, mod._cuda_ext()


def once():
    """One launch each of the layer kernel (R = 1 and 2) and of the wavefront kernel on task 39's
    shapes, for a profiler: ncu -k regex:kwb_rnn python3 tests/gpu/cluster_rnn_probe.py --once"""
    mod, ext = build()
    T, B, H, L, g = 512, 10, 256, 6, 3
    torch.manual_seed(0)
    gi = torch.randn(T, B, g * H, device="cuda") * 0.5
    w = torch.randn(g * H, H, device="cuda") / H ** 0.5
    bh = torch.randn(g * H, device="cuda") * 0.1
    h0 = torch.randn(L, B, H, device="cuda")
    out = torch.empty(T, B, H, device="cuda")
    for r, m in ((1, 4), (2, 1)):
        ext.rnn_layer(g, 8, 256, r, m, 1, gi, gi, B * g * H, g * H, w, w, bh, bh, h0[:1].contiguous(), None, out,
                      B * H, H, None, None, T, B, H)
    whh = w.expand(L, -1, -1).contiguous()
    wih = w.expand(L - 1, -1, -1).contiguous()
    bb = bh.expand(L, -1).contiguous()
    hseq = torch.full(((L - 1) * T * B * H,), -1, device="cuda", dtype=torch.int32).view(torch.float32)
    err = torch.zeros(1, device="cuda", dtype=torch.int32)
    x = torch.randn(T, B, 128, device="cuda")
    wih0 = torch.randn(g * H, 128, device="cuda") / 128 ** 0.5
    got = ext.rnn_wave(g, 8, 256, 5, 1, x, B * 128, 128, wih0, whh, wih, bb, bb, h0, None, hseq, out, B * H, H,
                       None, None, err, T, B, L, H, 1 << 22)
    torch.cuda.synchronize()
    print("wave launch: %d clusters, err %d" % (got, int(err.item())))
    return 0


def main():
    if not torch.cuda.is_available():
        print("SKIP: cluster_rnn_probe needs a CUDA GPU")
        return 0
    if "--once" in sys.argv:
        return once()
    mod, ext = build()
    T, B, H = 512, 10, 256
    torch.manual_seed(0)
    rows = []
    for (g, cs, nt, r, mode) in mod._cuda_instances():
        if r != 1 and mode >= 2:
            continue
        gi = torch.randn(T, B, g * H, device="cuda") * 0.5
        w = torch.randn(g * H, H, device="cuda") / H ** 0.5
        bh = torch.randn(g * H, device="cuda") * 0.1
        h0 = torch.randn(1, B, H, device="cuda")
        c0 = torch.randn(1, B, H, device="cuda") if g == 4 else None
        out = torch.empty(T, B, H, device="cuda")
        hn = torch.empty(1, B, H, device="cuda")

        def launch():
            ext.rnn_layer(g, cs, nt, r, mode, 1, gi, gi, B * g * H, g * H, w, w, bh, bh, h0, c0, out, B * H, H,
                          hn, None, T, B, H)
        launch()
        torch.cuda.synchronize()
        err = None
        if mode <= 1:
            ref = reference(g, gi, w, bh, h0, c0, T, B, H)
            err = (out.double() - ref).abs().max().item()
        ms = median_ms(launch, 15)
        clusters = ext.max_active_clusters(g, cs, nt, r, mode)
        rows.append((g, cs, nt, r, mode, ms, ms * 1000 / T, err, clusters))
        print("%s CS=%-2d NT=%-4d R=%d mode=%d  layer %.3f ms  %.3f us/step  max err vs fp64 %s  "
              "max active clusters %d" % ("GRU " if g == 3 else "LSTM", cs, nt, r, mode, ms, ms * 1000 / T,
                                          ("%.2e" % err) if err is not None else "-", clusters), flush=True)
    gemm_sweep(mod)
    return 0


GEMMS = [(64, 64, 32, 4, 3), (64, 128, 32, 4, 3), (128, 64, 32, 4, 3), (128, 64, 32, 8, 3),
         (128, 128, 32, 8, 3), (128, 128, 16, 8, 3), (128, 128, 32, 8, 2), (128, 256, 16, 8, 3)]


def gemm_sweep(mod):
    """The input-gate GEMM of one layer (M = T*B = 5120, N = 3H or 4H, K = 256 or 128): Triton
    tile configurations of the candidate's _gate_gemm, and cuBLAS (TF32 off) for comparison."""
    torch.backends.cuda.matmul.allow_tf32 = False
    base = tuple(mod._CFG["gemm"])
    for (M, N, K) in [(5120, 768, 256), (5120, 768, 128), (5120, 1024, 256)]:
        a = torch.randn(M, K, device="cuda")
        w = torch.randn(N, K, device="cuda") / K ** 0.5
        b1 = torch.randn(N, device="cuda")
        b2 = torch.randn(N, device="cuda")
        ref = (a.double() @ w.double().t() + b1.double() + b2.double())
        cands = {"cublas_tf32_off": lambda: torch.addmm(b1 + b2, a, w.t())}
        for cfg in GEMMS:
            def run(cfg=cfg):
                mod._CFG["gemm"] = cfg
                return mod._gate_gemm(a, w, b1, b2, N)
            cands["triton_%dx%dx%d_w%d_s%d" % cfg] = run
        for name, fn in cands.items():
            try:
                y = fn()
                err = (y.double() - ref).abs().max().item()
                us = median_ms(fn, 20) * 1000
                print("GEMM %dx%dx%d %-28s %8.1f us  %5.1f TFLOP/s  max err vs fp64 %.2e" % (
                    M, N, K, name, us, 2 * M * N * K / us / 1e6, err), flush=True)
            except Exception as exc:  # a tile config Triton cannot build must not stop the sweep
                print("GEMM %dx%dx%d %-28s failed: %s" % (M, N, K, name, str(exc)[:200]), flush=True)
    mod._CFG["gemm"] = base


if __name__ == "__main__":
    sys.exit(main())
