# SPDX-License-Identifier: MIT
# Scratch script that produced wave_v2_probe.txt (patches the v2 wavefront of commit 4e8e1d7).
# Scratch: step decomposition of wavefront v2 (probe bits), kernel-only time, and the candidates'
# end-to-end split: CPU time of forward vs GPU time, profiler kernel list.
import os, sys, statistics, subprocess, glob, hashlib, time, importlib.util
import torch
from torch.utils.cpp_extension import load_inline
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.environ.get("OUT", "/tmp")
src = open(os.path.join(ROOT, "resources/showcase/cluster_rnn.cu")).read()
def rep(a, b, n=1):
    global src
    assert src.count(a) == n, (a, src.count(a))
    src = src.replace(a, b)
rep("int T, int B, int L, int max_spin)\n{\n    // x:", "int T, int B, int L, int max_spin, int probe)\n{\n    // x:")
rep("        if (step > 0) ex.template wait<false>(step, tid, T, kBytes);\n        __syncthreads();  // orders the staging",
    "        if (step > 0 && !(probe & 8)) ex.template wait<false>(step, tid, T, kBytes);\n        __syncthreads();  // orders the staging")
rep("        kwb_dot<G, H, R, TPU, KS, false, 1>(acc, wreg, nullptr, hs + slot * R * H, q);",
    "        if (!(probe & 4)) kwb_dot<G, H, R, TPU, KS, false, 1>(acc, wreg, nullptr, hs + slot * R * H, q);")
rep("        if (step + 1 < T) kwb_push_h<H, CS, R, TPU>(hnew, ex.rem_s, ex.rem_b, tid, q, rank, (slot ^ 1) * R * H, (slot ^ 1) * 8);\n        if (q == 0) {",
    "        if (step + 1 < T && !(probe & 8)) kwb_push_h<H, CS, R, TPU>(hnew, ex.rem_s, ex.rem_b, tid, q, rank, (slot ^ 1) * R * H, (slot ^ 1) * 8);\n        if (q == 0) {")
rep("        store_input(step + 2);\n        load_input(step + 3);\n        if (step + 1 < T) input_partials(step + 1);",
    "        if (!(probe & 2)) { store_input(step + 2);\n        load_input(step + 3); }\n        if (step + 1 < T && !(probe & 1)) input_partials(step + 1);")
rep("int64_t T, int64_t B, int64_t L, int64_t H, int64_t max_spin)\n{", "int64_t T, int64_t B, int64_t L, int64_t H, int64_t max_spin, int64_t probe)\n{")
rep("(int)T, (int)B, (int)L, \\\n            (int)max_spin)); \\", "(int)T, (int)B, (int)L, \\\n            (int)max_spin, (int)probe)); \\")
inst = [(3, 8, 256, 1, 4)]
wave = [(3, 8, 256, 5), (4, 8, 256, 5)]
full = "#define KWB_INSTANCES %s\n#define KWB_WAVE_INSTANCES %s\n%s" % (
    " ".join("KWB_CASE(%d, %d, %d, %d, %d)" % i for i in inst), " ".join("KWB_WCASE(%d, %d, %d, %d)" % i for i in wave), src)
decl = r'''
#include <torch/extension.h>
int64_t rnn_wave(int64_t cell, int64_t cs, int64_t nt, int64_t rows,
                 torch::Tensor x, int64_t x_st, int64_t x_sb, torch::Tensor wih0, torch::Tensor whh, torch::Tensor wih,
                 torch::Tensor bih, torch::Tensor bhh, torch::Tensor h0, c10::optional<torch::Tensor> c0,
                 torch::Tensor hseq, c10::optional<torch::Tensor> out, int64_t out_st, int64_t out_sb,
                 c10::optional<torch::Tensor> hn, c10::optional<torch::Tensor> cn, torch::Tensor err,
                 int64_t T, int64_t B, int64_t L, int64_t H, int64_t max_spin, int64_t probe);
'''
name = "kwb_probe2_" + hashlib.sha1(full.encode()).hexdigest()[:10]
bdir = os.path.join("/tmp", name); os.makedirs(bdir, exist_ok=True)
ext = load_inline(name=name, cpp_sources=decl, cuda_sources=full, functions=["rnn_wave"],
                  extra_cuda_cflags=["-O3"], build_directory=bdir, verbose=False)

def med(fn, n=9):
    ts = []
    for _ in range(n):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record(); fn(); e.record(); torch.cuda.synchronize(); ts.append(s.elapsed_time(e))
    return statistics.median(ts)

T, B, H, L, K0 = 512, 10, 256, 6, 128
torch.manual_seed(0)
for g in (3, 4):
    x = torch.randn(T, B, K0, device="cuda")
    w = torch.randn(g * H, H, device="cuda") / H ** 0.5
    wih0 = torch.randn(g * H, K0, device="cuda") / K0 ** 0.5
    bh = torch.randn(g * H, device="cuda") * 0.1
    h0 = torch.randn(L, B, H, device="cuda")
    c0 = torch.randn(L, B, H, device="cuda") if g == 4 else None
    out = torch.empty(T, B, H, device="cuda")
    whh = w.expand(L, -1, -1).contiguous(); wih = w.expand(L - 1, -1, -1).contiguous()
    bb = bh.expand(L, -1).contiguous()
    n = (L - 1) * T * B * H
    buf = torch.empty(n + 1, device="cuda", dtype=torch.int32)
    for probe in (0, 1, 2, 4, 8, 3, 9, 12, 15):
        def f():
            buf.fill_(-1)
            ext.rnn_wave(g, 8, 256, 5, x, B * K0, K0, wih0, whh, wih, bb, bb, h0, c0, buf[:n].view(torch.float32), out, B * H, H,
                         None, None, buf[n:], T, B, L, H, 1 << 22, probe)
        f(); torch.cuda.synchronize()
        ms = med(f)
        print("v2 wave G=%d probe=%2d (noIH=%d noStage=%d noHH=%d noXchg=%d): %.3f ms (incl fill)  %.3f us/step(527)  err=%d" % (
            g, probe, probe & 1, (probe >> 1) & 1, (probe >> 2) & 1, (probe >> 3) & 1, ms, ms * 1000 / 527, int(buf[n].item())), flush=True)

def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod); return mod
from torch.profiler import profile, ProfilerActivity
flush = torch.empty(64 * 1024 * 1024, device="cuda", dtype=torch.int32)
for task in ("39_GRU", "37_LSTMCn"):
    tm = load(os.path.join(ROOT, "tasks/level3/%s.py" % task), "t" + task[:2])
    cm = load(os.path.join(ROOT, "resources/showcase/%s.py" % task), "c" + task[:2])
    torch.manual_seed(42)
    model = cm.ModelNew(*tm.get_init_inputs()).cuda().eval()
    xs = [t.cuda() for t in tm.get_inputs()]
    with torch.no_grad():
        for _ in range(3): model(*xs)
        torch.cuda.synchronize()
        cpu, gpu = [], []
        for _ in range(15):
            flush.zero_(); torch.cuda.synchronize()
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            t0 = time.perf_counter(); s.record(); model(*xs); e.record(); t1 = time.perf_counter()
            torch.cuda.synchronize(); cpu.append((t1 - t0) * 1000); gpu.append(s.elapsed_time(e))
        print("%s: forward CPU %.3f ms (median), GPU events %.3f ms" % (task, statistics.median(cpu), statistics.median(gpu)), flush=True)
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            for _ in range(5):
                flush.zero_(); torch.cuda.synchronize(); model(*xs); torch.cuda.synchronize()
        print(prof.key_averages().table(sort_by="cuda_time_total", row_limit=12), flush=True)
