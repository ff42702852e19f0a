# SPDX-License-Identifier: MIT
# Scratch script that produced wave_v1_probe.txt (run on the H100 from the repository root; it
# patches the v1 wavefront source of that time, so it applies to commit ad10791 only).
# Scratch: where the wavefront kernel's step time goes (probe bits), and the layer kernel at R rows.
import os, sys, statistics, subprocess, glob, hashlib
import torch
from torch.utils.cpp_extension import load_inline
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.environ.get("OUT", "/tmp")
src = open(os.path.join(ROOT, "resources/showcase/cluster_rnn.cu")).read()
def rep(a, b, n=1):
    global src
    assert src.count(a) == n, (a, src.count(a))
    src = src.replace(a, b)
rep("int T, int B, int L, int max_spin)\n{", "int T, int B, int L, int max_spin, int probe)\n{")
rep("        if (step > 0) ex.template wait<false>(step, tid, T, kBytes);\n        __syncthreads();  // orders",
    "        if (step > 0 && !(probe & 8)) ex.template wait<false>(step, tid, T, kBytes);\n        __syncthreads();  // orders")
rep("        kwb_matvec<G, H, R, TPU, KS, false>(acc, wreg, nullptr, hs + slot * R * H, q);\n        float hnew[R];\n#pragma unroll\n        for (int r = 0; r < R; ++r) {\n            hnew[r] = kwb_cell<G>(gcur[r]",
    "        if (!(probe & 4)) kwb_matvec<G, H, R, TPU, KS, false>(acc, wreg, nullptr, hs + slot * R * H, q);\n        else {\n#pragma unroll\n            for (int r = 0; r < R; ++r)\n#pragma unroll\n                for (int g = 0; g < G; ++g) acc[r][g] = hs[slot * R * H + r * H + tid % H];\n        }\n        float hnew[R];\n#pragma unroll\n        for (int r = 0; r < R; ++r) {\n            hnew[r] = kwb_cell<G>(gcur[r]")
rep("        if (step + 1 < T) kwb_push_h<H, CS, R, TPU>(hnew, ex.rem_s, ex.rem_b, tid, q, rank, (slot ^ 1) * R * H, (slot ^ 1) * 8);\n        if (l < L - 1) {",
    "        if (step + 1 < T && !(probe & 8)) kwb_push_h<H, CS, R, TPU>(hnew, ex.rem_s, ex.rem_b, tid, q, rank, (slot ^ 1) * R * H, (slot ^ 1) * 8);\n        if (l < L - 1) {")
rep("            if (tid == 0 && step > 0) publish();  // h(step-1)", "            if (tid == 0 && step > 0 && !(probe & 2)) publish();  // h(step-1)")
rep("        if (l > 0) {\n            store_input(step + 2);\n            load_input(step + 3);\n            if (tid == 0) poll_input(step + 4);\n            if (step + 1 < T) input_gates(step + 1, gnext);\n        }",
    "        if (l > 0) {\n            if (!(probe & 2)) {\n            store_input(step + 2);\n            load_input(step + 3);\n            if (tid == 0) poll_input(step + 4);\n            }\n            if (step + 1 < T && !(probe & 1)) input_gates(step + 1, gnext);\n        }")
rep("    if (l > 0) {\n        if (tid == 0) poll_input(2);", "    if (l > 0 && !(probe & 2)) {\n        if (tid == 0) poll_input(2);")
rep("        if (tid == 0) publish();  // h(T-1)", "        if (tid == 0 && !(probe & 2)) publish();  // h(T-1)")
rep("    cluster.sync();\n    if (q == 0) {\n#pragma unroll\n        for (int r = 0; r < R; ++r) {\n            if (hn != nullptr) hn[(long long)(l * B",
    "    if (probe & 8) { cluster.sync(); cluster.sync(); }\n    cluster.sync();\n    if (q == 0) {\n#pragma unroll\n        for (int r = 0; r < R; ++r) {\n            if (hn != nullptr) hn[(long long)(l * B")
rep("int64_t T, int64_t B, int64_t L, int64_t H, int64_t max_spin)\n{", "int64_t T, int64_t B, int64_t L, int64_t H, int64_t max_spin, int64_t probe)\n{")
rep("err.data_ptr<int>(), (int)T, (int)B, (int)L, \\\n            (int)max_spin));", "err.data_ptr<int>(), (int)T, (int)B, (int)L, \\\n            (int)max_spin, (int)probe));")
inst = [(3, 8, 256, 1, 4), (3, 8, 256, 5, 4), (4, 8, 256, 1, 4), (4, 8, 256, 5, 4)]
wave = [(3, 8, 256, 5), (4, 8, 256, 5)]
full = "#define KWB_INSTANCES %s\n#define KWB_WAVE_INSTANCES %s\n%s" % (
    " ".join("KWB_CASE(%d, %d, %d, %d, %d)" % i for i in inst), " ".join("KWB_WCASE(%d, %d, %d, %d)" % i for i in wave), src)
decl = r'''
#include <torch/extension.h>
void rnn_layer(int64_t cell, int64_t cs, int64_t nt, int64_t rows, int64_t mode, int64_t dirs,
               torch::Tensor gi0, torch::Tensor gi1, int64_t gi_st, int64_t gi_sb,
               torch::Tensor w0, torch::Tensor w1, torch::Tensor bh0, torch::Tensor bh1,
               torch::Tensor h0, c10::optional<torch::Tensor> c0,
               c10::optional<torch::Tensor> out, int64_t out_st, int64_t out_sb,
               c10::optional<torch::Tensor> hn, c10::optional<torch::Tensor> cn, int64_t T, int64_t B, int64_t H);
int64_t rnn_wave(int64_t cell, int64_t cs, int64_t nt, int64_t rows,
                 torch::Tensor gi0, int64_t gi_st, int64_t gi_sb, torch::Tensor whh, torch::Tensor wih,
                 torch::Tensor bih, torch::Tensor bhh, torch::Tensor h0, c10::optional<torch::Tensor> c0,
                 torch::Tensor hseq, torch::Tensor prog, c10::optional<torch::Tensor> out, int64_t out_st, int64_t out_sb,
                 c10::optional<torch::Tensor> hn, c10::optional<torch::Tensor> cn, torch::Tensor err,
                 int64_t T, int64_t B, int64_t L, int64_t H, int64_t max_spin, int64_t probe);
'''
name = "kwb_probe_" + hashlib.sha1(full.encode()).hexdigest()[:10]
bdir = os.path.join("/tmp", name); os.makedirs(bdir, exist_ok=True)
ext = load_inline(name=name, cpp_sources=decl, cuda_sources=full, functions=["rnn_layer", "rnn_wave"],
                  extra_cuda_cflags=["-O3", "-Xptxas", "-v"], build_directory=bdir, verbose=False)
for so in glob.glob(bdir + "/*.so"):
    subprocess.run("cuobjdump -sass %s > %s/probe.sass 2>&1" % (so, OUT), shell=True)

def med(fn, n=9):
    ts = []
    for _ in range(n):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record(); fn(); e.record(); torch.cuda.synchronize(); ts.append(s.elapsed_time(e))
    return statistics.median(ts)

T, B, H, L = 512, 10, 256, 6
torch.manual_seed(0)
for g in (3, 4):
    gi = torch.randn(T, B, g * H, device="cuda") * 0.5
    w = torch.randn(g * H, H, device="cuda") / H ** 0.5
    bh = torch.randn(g * H, device="cuda") * 0.1
    h0 = torch.randn(L, B, H, device="cuda")
    c0 = torch.randn(L, B, H, device="cuda") if g == 4 else None
    out = torch.empty(T, B, H, device="cuda")
    for (gg, cs, nt, r, m) in inst:
        if gg != g: continue
        f = lambda: ext.rnn_layer(g, cs, nt, r, m, 1, gi, gi, B * g * H, g * H, w, w, bh, bh, h0[:1].contiguous(),
                                  c0[:1].contiguous() if c0 is not None else None, out, B * H, H, None, None, T, B, H)
        f(); torch.cuda.synchronize()
        ms = med(f)
        print("layer G=%d R=%d: %.3f ms/layer  %.3f us/step" % (g, r, ms, ms * 1000 / T), flush=True)
    whh = w.expand(L, -1, -1).contiguous(); wih = w.expand(L - 1, -1, -1).contiguous()
    bb = bh.expand(L, -1).contiguous()
    hseq = torch.empty(L - 1, T, B, H, device="cuda")
    for probe in (0, 1, 2, 3, 4, 5, 8, 9, 10, 11, 15):
        def f():
            prog = torch.zeros((L - 1) * 2 * 32, device="cuda", dtype=torch.int32)
            err = torch.zeros(1, device="cuda", dtype=torch.int32)
            ext.rnn_wave(g, 8, 256, 5, gi, B * g * H, g * H, whh, wih, bb, bb, h0, c0, hseq, prog, out, B * H, H,
                         None, None, err, T, B, L, H, 1 << 22, probe)
            return err
        e = f(); torch.cuda.synchronize()
        ms = med(f)
        print("wave G=%d probe=%2d (noIH=%d noComm=%d noHH=%d noXchg=%d): %.3f ms  %.3f us/step(517)  err=%d" % (
            g, probe, probe & 1, (probe >> 1) & 1, (probe >> 2) & 1, (probe >> 3) & 1, ms, ms * 1000 / 517, int(e.item())), flush=True)
