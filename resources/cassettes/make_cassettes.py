#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the shipped replay cassettes (resources/cassettes/<task>.json) for `kwb run` without an
API key. Every answer is authored by the Kernel Workbench developers, not produced by a model; the
cassette's metadata says so. Standard library only.

The cassettes tell the seeds' story (docs/pipeline.md): a naive seed whose time loop runs in Python
(one launch per step and layer), a seed that fails to compile (tl.tanh is missing in Triton 3.x)
and its repair, an algorithm analysis as JSON, a persistent kernel (the showcase candidate
resources/showcase/<task>.py, the GPU engineer's kernel, generated from its sources when this script
runs), and a tuning stage that would regress (kept in the tree, not selected; the detectors' policy
skips the stages on a good persistent kernel, so it only runs when the policy asks for stages).
1_ReLU tells the same story in plain PyTorch so the whole loop replays on a CPU machine.

Prompt hashes: the prompts hold measured figures (latencies, the device name), so a recording
never matches another machine byte for byte; `kwb run` replays shipped cassettes leniently and says
so. `kwb run TASK --cassette FILE --record-cassette FILE` rewrites the recorded prompts and hashes
of the calls a run made from the current templates (the others are kept as they are).

Run: python3 resources/cassettes/make_cassettes.py [--check]   (--check: exit 1 unless the committed
cassettes are what this script gives; ctest runs it)
"""
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "showcase"))
import make_showcase  # noqa: E402  (the showcase candidates are generated, never committed)

AUTHOR = "Kernel Workbench developers: hand-written answers, not model output"


def fence(text, code, lang="python"):
    return "%s\n\n```%s\n%s```\n" % (text.strip(), lang, code.lstrip("\n"))


# ----------------------------------------------------------------------------------------------
# GRU (39_GRU, 40_GRUHidden)

GRU_STEP_KERNEL = '''
@triton.jit
def gru_step_kernel(x_ptr, h_ptr, w_ih_ptr, w_hh_ptr, b_ih_ptr, b_hh_ptr, out_ptr, IN, H,
                    BLOCK_H: tl.constexpr, BLOCK_K: tl.constexpr):
    """One GRU time step of one layer: program (b, j-block) computes h_t[b, j-block]."""
    b = tl.program_id(0)
    j = tl.program_id(1) * BLOCK_H + tl.arange(0, BLOCK_H)
    jm = j < H
    acc_r = tl.zeros((BLOCK_H,), dtype=tl.float32)
    acc_z = tl.zeros((BLOCK_H,), dtype=tl.float32)
    acc_in = tl.zeros((BLOCK_H,), dtype=tl.float32)
    acc_hn = tl.zeros((BLOCK_H,), dtype=tl.float32)
    for k0 in range(0, IN, BLOCK_K):
        k = k0 + tl.arange(0, BLOCK_K)
        km = k < IN
        m2 = jm[:, None] & km[None, :]
        xv = tl.load(x_ptr + b * IN + k, mask=km, other=0.0)
        w_r = tl.load(w_ih_ptr + j[:, None] * IN + k[None, :], mask=m2, other=0.0)
        w_z = tl.load(w_ih_ptr + (j[:, None] + H) * IN + k[None, :], mask=m2, other=0.0)
        w_n = tl.load(w_ih_ptr + (j[:, None] + 2 * H) * IN + k[None, :], mask=m2, other=0.0)
        acc_r += tl.sum(w_r * xv[None, :], axis=1)
        acc_z += tl.sum(w_z * xv[None, :], axis=1)
        acc_in += tl.sum(w_n * xv[None, :], axis=1)
    for k0 in range(0, H, BLOCK_K):
        k = k0 + tl.arange(0, BLOCK_K)
        km = k < H
        m2 = jm[:, None] & km[None, :]
        hv = tl.load(h_ptr + b * H + k, mask=km, other=0.0)
        u_r = tl.load(w_hh_ptr + j[:, None] * H + k[None, :], mask=m2, other=0.0)
        u_z = tl.load(w_hh_ptr + (j[:, None] + H) * H + k[None, :], mask=m2, other=0.0)
        u_n = tl.load(w_hh_ptr + (j[:, None] + 2 * H) * H + k[None, :], mask=m2, other=0.0)
        acc_r += tl.sum(u_r * hv[None, :], axis=1)
        acc_z += tl.sum(u_z * hv[None, :], axis=1)
        acc_hn += tl.sum(u_n * hv[None, :], axis=1)
    r = tl.sigmoid(acc_r + tl.load(b_ih_ptr + j, mask=jm, other=0.0) + tl.load(b_hh_ptr + j, mask=jm, other=0.0))
    z = tl.sigmoid(acc_z + tl.load(b_ih_ptr + H + j, mask=jm, other=0.0)
                   + tl.load(b_hh_ptr + H + j, mask=jm, other=0.0))
    n_pre = acc_in + tl.load(b_ih_ptr + 2 * H + j, mask=jm, other=0.0) \\
        + r * (acc_hn + tl.load(b_hh_ptr + 2 * H + j, mask=jm, other=0.0))
    n = TANH
    h_prev = tl.load(h_ptr + b * H + j, mask=jm, other=0.0)
    tl.store(out_ptr + b * H + j, (1.0 - z) * n + z * h_prev, mask=jm)
'''

GRU_NAIVE_MODEL = '''

class ModelNew(nn.Module):
    def __init__(self, input_size, hidden_size, num_layers=3, bias=True, batch_first=False):
        super(ModelNew, self).__init__()
        # Owns the parameters with the reference's names, shapes and init order; never called.
        self.gru = nn.GRU(input_size, hidden_size, num_layers, bias, batch_first,
                          dropout=0, bidirectional=False)
        self.hidden_size = hidden_size
        self.num_layers = num_layers

    def forward(self, x, h0):
        seq_len, batch, _ = x.shape
        H = self.hidden_size
        layer_in = x.contiguous()
        finals = []
        for layer in range(self.num_layers):
            w_ih = getattr(self.gru, "weight_ih_l%d" % layer).contiguous()
            w_hh = getattr(self.gru, "weight_hh_l%d" % layer).contiguous()
            b_ih = getattr(self.gru, "bias_ih_l%d" % layer).contiguous()
            b_hh = getattr(self.gru, "bias_hh_l%d" % layer).contiguous()
            IN = layer_in.shape[2]
            out = torch.empty(seq_len, batch, H, device=x.device, dtype=x.dtype)
            h = h0[layer].contiguous()
            grid = (batch, triton.cdiv(H, 64))
            for t in range(seq_len):
                gru_step_kernel[grid](layer_in[t], h, w_ih, w_hh, b_ih, b_hh, out[t], IN, H,
                                      BLOCK_H=64, BLOCK_K=64)
                h = out[t]
            finals.append(h)
            layer_in = out
        return RETURN
'''

HEADER = "import torch\nimport torch.nn as nn\nimport triton\nimport triton.language as tl\n"


def gru_naive(tanh, hidden_only, extra_import=""):
    kernel = GRU_STEP_KERNEL.replace("TANH", tanh)
    model = GRU_NAIVE_MODEL.replace("RETURN", "torch.stack(finals, 0)" if hidden_only else "layer_in")
    return HEADER + extra_import + "\n" + kernel + model


# ----------------------------------------------------------------------------------------------
# LSTM (37_LSTMCn: batch_first, returns the final cell state c_n)

LSTM_STEP_KERNEL = '''
@triton.jit
def lstm_step_kernel(x_ptr, XS, h_ptr, c_ptr, w_ih_ptr, w_hh_ptr, b_ih_ptr, b_hh_ptr, h_out_ptr, c_out_ptr,
                     IN, H, BLOCK_H: tl.constexpr, BLOCK_K: tl.constexpr):
    """One LSTM time step of one layer: program (b, j-block) computes h_t, c_t[b, j-block]
    (gates i, f, g, o; x row b at x_ptr + b * XS)."""
    b = tl.program_id(0)
    j = tl.program_id(1) * BLOCK_H + tl.arange(0, BLOCK_H)
    jm = j < H
    acc_i = tl.zeros((BLOCK_H,), dtype=tl.float32)
    acc_f = tl.zeros((BLOCK_H,), dtype=tl.float32)
    acc_g = tl.zeros((BLOCK_H,), dtype=tl.float32)
    acc_o = tl.zeros((BLOCK_H,), dtype=tl.float32)
    for k0 in range(0, IN, BLOCK_K):
        k = k0 + tl.arange(0, BLOCK_K)
        km = k < IN
        m2 = jm[:, None] & km[None, :]
        xv = tl.load(x_ptr + b * XS + k, mask=km, other=0.0)
        acc_i += tl.sum(tl.load(w_ih_ptr + j[:, None] * IN + k[None, :], mask=m2, other=0.0) * xv[None, :], axis=1)
        acc_f += tl.sum(tl.load(w_ih_ptr + (j[:, None] + H) * IN + k[None, :], mask=m2, other=0.0) * xv[None, :], axis=1)
        acc_g += tl.sum(tl.load(w_ih_ptr + (j[:, None] + 2 * H) * IN + k[None, :], mask=m2, other=0.0) * xv[None, :], axis=1)
        acc_o += tl.sum(tl.load(w_ih_ptr + (j[:, None] + 3 * H) * IN + k[None, :], mask=m2, other=0.0) * xv[None, :], axis=1)
    for k0 in range(0, H, BLOCK_K):
        k = k0 + tl.arange(0, BLOCK_K)
        km = k < H
        m2 = jm[:, None] & km[None, :]
        hv = tl.load(h_ptr + b * H + k, mask=km, other=0.0)
        acc_i += tl.sum(tl.load(w_hh_ptr + j[:, None] * H + k[None, :], mask=m2, other=0.0) * hv[None, :], axis=1)
        acc_f += tl.sum(tl.load(w_hh_ptr + (j[:, None] + H) * H + k[None, :], mask=m2, other=0.0) * hv[None, :], axis=1)
        acc_g += tl.sum(tl.load(w_hh_ptr + (j[:, None] + 2 * H) * H + k[None, :], mask=m2, other=0.0) * hv[None, :], axis=1)
        acc_o += tl.sum(tl.load(w_hh_ptr + (j[:, None] + 3 * H) * H + k[None, :], mask=m2, other=0.0) * hv[None, :], axis=1)
    acc_i += tl.load(b_ih_ptr + j, mask=jm, other=0.0) + tl.load(b_hh_ptr + j, mask=jm, other=0.0)
    acc_f += tl.load(b_ih_ptr + H + j, mask=jm, other=0.0) + tl.load(b_hh_ptr + H + j, mask=jm, other=0.0)
    acc_g += tl.load(b_ih_ptr + 2 * H + j, mask=jm, other=0.0) + tl.load(b_hh_ptr + 2 * H + j, mask=jm, other=0.0)
    acc_o += tl.load(b_ih_ptr + 3 * H + j, mask=jm, other=0.0) + tl.load(b_hh_ptr + 3 * H + j, mask=jm, other=0.0)
    i = tl.sigmoid(acc_i)
    f = tl.sigmoid(acc_f)
    g_pre = acc_g
    g = TANH_G
    o = tl.sigmoid(acc_o)
    c = f * tl.load(c_ptr + b * H + j, mask=jm, other=0.0) + i * g
    c_act = TANH_C
    tl.store(c_out_ptr + b * H + j, c, mask=jm)
    tl.store(h_out_ptr + b * H + j, o * c_act, mask=jm)
'''

LSTM_NAIVE_MODEL = '''

class ModelNew(nn.Module):
    def __init__(self, input_size, hidden_size, num_layers, output_size, dropout=0.0):
        super(ModelNew, self).__init__()
        # Owns the parameters with the reference's names, shapes and init order; never called.
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.lstm = nn.LSTM(input_size, hidden_size, num_layers,
                            batch_first=True, dropout=dropout, bidirectional=False)
        self.fc = nn.Linear(hidden_size, output_size)

    def forward(self, x, h0, c0):
        batch, seq_len, _ = x.shape
        H = self.hidden_size
        layer_in = x.contiguous()
        cells = []
        for layer in range(self.num_layers):
            w_ih = getattr(self.lstm, "weight_ih_l%d" % layer).contiguous()
            w_hh = getattr(self.lstm, "weight_hh_l%d" % layer).contiguous()
            b_ih = getattr(self.lstm, "bias_ih_l%d" % layer).contiguous()
            b_hh = getattr(self.lstm, "bias_hh_l%d" % layer).contiguous()
            IN = layer_in.shape[2]
            out = torch.empty(batch, seq_len, H, device=x.device, dtype=x.dtype)
            h = h0[layer].contiguous()
            c = c0[layer].contiguous()
            grid = (batch, triton.cdiv(H, 64))
            for t in range(seq_len):
                h_new = torch.empty_like(h)
                c_new = torch.empty_like(c)
                lstm_step_kernel[grid](layer_in[:, t], layer_in.stride(0), h, c, w_ih, w_hh, b_ih, b_hh,
                                       h_new, c_new, IN, H, BLOCK_H=64, BLOCK_K=64)
                out[:, t] = h_new
                h, c = h_new, c_new
            cells.append(c)
            layer_in = out
        return torch.stack(cells, 0)
'''


def lstm_naive(tanh, extra_import=""):
    kernel = LSTM_STEP_KERNEL.replace("TANH_G", tanh % "g_pre").replace("TANH_C", tanh % "c")
    return HEADER + extra_import + "\n" + kernel + LSTM_NAIVE_MODEL


def showcase(task):
    return make_showcase.render_all()[task]


def regressing_stage(code):
    # A "grid" change an LLM could well propose: one cluster per batch row and layer, run layer by
    # layer (10 clusters in flight instead of the 12-cluster wavefront of the whole stack): more
    # programs per step, but 6 x 512 dependent steps instead of ~530, and a GEMM per layer. Correct,
    # and slower (39_GRU 3.0 ms against 1.9 ms on the H100: cuda_run17's layerwise variant).
    new, n = re.subn(r'"wave": \([^)]*\)', '"wave": ()', code, count=1)
    if n == 0:
        raise SystemExit("showcase config \"wave\" not found: update regressing_stage()")
    return new


def analysis(output_requirement, returns, cell="GRU"):
    return {
        "worth_optimizing": "yes",
        "reason": "the time loop runs in Python: seq_len x num_layers = 3072 launches of a small kernel, "
                  "each reloading W_hh; the GPU idles between launches",
        "bottleneck": "kernel launch overhead and W_hh reloads per step (launch-bound, not compute-bound)",
        "optimisation_method": "one persistent launch for the whole stack: thread-block clusters that keep "
                               "W_hh on chip and exchange h(t-1) through distributed shared memory, the layers "
                               "running as a wavefront",
        "modification_plan": "1) one CUDA C++ kernel (load_inline, sm_90) runs every layer and time step; "
                             "2) one cluster of 8 CTAs per (layer, group of batch rows), each CTA keeping its "
                             "hidden units' rows of W_hh in registers and sending its new h slice to the other "
                             "CTAs' shared memory every step (mbarrier-counted, no grid barrier); 3) each layer "
                             "computes its input gates x(t) @ W_ih^T itself (fp32), layer l+1 reading layer l's "
                             "h(t) a few steps behind it; 4) " + returns,
        "expected_speedup": "20-50x over the naive kernel",
        "implementation_complexity": "persistent",
        "kernel_type": "recurrent (%s), persistent" % cell,
        "output_requirement": output_requirement,
    }


def rnn_cassette(task, cell, hidden_only):
    """cell "GRU" (39_GRU, 40_GRUHidden) or "LSTM" (37_LSTMCn: the final cell state)."""
    if cell == "GRU":
        naive = lambda tanh, imp="": gru_naive(tanh % "n_pre", hidden_only, imp)
        returns = ("return only h_n: write the sequence only where the next layer needs it"
                   if hidden_only else "return the whole output sequence of the last layer")
        what = "h_n only" if hidden_only else "the whole sequence"
    else:
        naive = lstm_naive
        returns = "return only c_n: the last layer's sequence is never written"
        what = "c_n only"
    req = "final_hidden_only" if hidden_only else "full_sequence"
    persistent = showcase(task)
    ex = [
        ("seed1", fence("A first Triton version: one kernel computes a %s step; the forward walks the time "
                        "steps and layers." % cell, naive("2.0 * tl.sigmoid(2.0 * %s) - 1.0"))),
        ("seed2", fence("Triton %s, one launch per time step, with the tanh from triton.language." % cell,
                        naive("tl.tanh(%s)"))),
        ("seed2_repair1", fence("`tl.tanh` does not exist in Triton 3.x (AttributeError at compile time). "
                                "Use libdevice's tanh instead; nothing else changes.",
                                naive("libdevice.tanh(%s)", "from triton.language.extra.cuda import libdevice\n"))),
        ("algorithm_analysis_seed1", fence("Analysis of the seed kernel:",
                                           json.dumps(analysis(req, returns, cell), indent=2) + "\n", "json")),
        ("algorithm_optimized_seed1", fence("The persistent design from the analysis, all layers in one "
                                            "launch; the reference returns %s, so the kernel does exactly "
                                            "that." % what, persistent)),
        ("algorithm_analysis_seed2", fence("Analysis:", json.dumps(dict(
            analysis(req, returns, cell), worth_optimizing="no",
            reason="the same per-step design as seed 1, whose rewrite covers it; a second persistent "
                   "rewrite would duplicate that work"), indent=2) + "\n", "json")),
        ("stage_grid", fence("Grid stage: one cluster per batch row and layer, layer by layer, so more "
                             "programs share each step.", regressing_stage(persistent))),
    ]
    story = [
        "seed1: correct but launch-bound (Python time loop: 3072 launches)",
        "seed2: compile error, tl.tanh is missing in Triton 3.x; seed2_repair1 uses libdevice.tanh",
        "algorithm_analysis_seed1: JSON, implementation_complexity persistent, output_requirement " + req,
        "algorithm_optimized_seed1: the persistent wavefront kernel (resources/showcase/%s.py)" % task,
        "algorithm_analysis_seed2: not worth optimizing",
        "stage_grid: a tuning stage that regresses (layer by layer again); only asked when the policy runs stages",
    ]
    return ex, story


# ----------------------------------------------------------------------------------------------
# 1_ReLU: the same story in plain PyTorch, runnable on a CPU machine

RELU = '''import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, x):
BODY'''


def relu(body):
    return RELU.replace("BODY", body)


def relu_cassette():
    loop = ("        out = torch.empty_like(x)\n"
            "        # one small operation per row, from Python (the seeds' time-loop pattern)\n"
            "        for i in range(x.shape[0]):\n"
            "            out[i] = x[i].clamp(min=0)\n"
            "        return out\n")
    ex = [
        ("seed1", fence("A first version that walks the rows:", relu(loop))),
        ("seed2", fence("A fused version:", relu("        return x.relu_kernel()\n"))),
        ("seed2_repair1", fence("`relu_kernel` does not exist on tensors (AttributeError). Fixed:", relu(
            "        return torch.where(x > 0, x, torch.zeros_like(x))\n"))),
        ("algorithm_analysis_seed1", fence("Analysis:", json.dumps({
            "worth_optimizing": "yes", "reason": "a Python loop issues one small operation per row",
            "bottleneck": "per-row dispatch from Python", "optimisation_method": "one pass over the tensor",
            "modification_plan": "drop the loop; clamp the whole input at once",
            "expected_speedup": "5x", "implementation_complexity": "low", "kernel_type": "elementwise",
            "output_requirement": "full_sequence"}, indent=2) + "\n", "json")),
        ("algorithm_optimized_seed1", fence("One pass, no Python loop:", relu("        return x.clamp(min=0.0)\n"))),
        ("algorithm_analysis_seed2", fence("Analysis:", json.dumps({
            "worth_optimizing": "yes", "reason": "where() allocates a zero tensor and makes two passes",
            "bottleneck": "extra allocation and memory traffic", "optimisation_method": "single pass",
            "modification_plan": "use a single clamp", "expected_speedup": "2x",
            "implementation_complexity": "low", "kernel_type": "elementwise",
            "output_requirement": "full_sequence"}, indent=2) + "\n", "json")),
        ("algorithm_optimized_seed2", fence("Single pass:", relu("        return torch.clamp_min(x, 0.0)\n"))),
        ("stage_grid", fence("Grid stage: process the rows in separate chunks so each fits in cache.", relu(
            "        return torch.cat([c.clamp(min=0.0) for c in x.split(1, dim=0)], dim=0)\n"))),
        ("stage_block", fence("Block stage: larger blocks.", relu("        return x.clamp(min=0.1)\n"))),
        ("stage_block_repair1", fence("The threshold must be 0, not 0.1:", relu(
            "        return torch.cat([c.clamp(min=0.0) for c in x.split(4, dim=0)], dim=0)\n"))),
        ("stage_memory", fence("Memory stage: write into a preallocated buffer.", relu(
            "        out = torch.empty_like(x)\n        torch.clamp(x, min=0.0, out=out)\n        return out\n"))),
    ]
    story = ["seed1: correct but slow (a Python loop over rows)",
             "seed2: runtime error; seed2_repair1 fixes it",
             "algorithm_analysis_seed1/2: JSON; algorithm_optimized_seed1/2: one pass",
             "stage_grid: regresses (kept, not selected); stage_block: wrong result, repaired; "
             "stage_memory: about as fast as the best"]
    return ex, story


def render(task, exchanges, story, note):
    """The cassette file's text."""
    cassette = {
        "format": "kwb-cassette",
        "version": 1,
        "metadata": {
            "task": task,
            "authored_by": AUTHOR,
            "generated_by": "resources/cassettes/make_cassettes.py",
            "story": story,
            "code": note,
            "prompt_hashes": "none recorded: replay is lenient (prompts hold measured latencies and the "
                             "device name); `kwb run %s --cassette FILE --record-cassette FILE` records "
                             "the current templates' prompts and hashes" % task,
        },
        "exchanges": [{"call_type": ct, "response": text, "messages": [], "model": "authored",
                       "provider": "replay"} for ct, text in exchanges],
    }
    return json.dumps(cassette, indent=1, ensure_ascii=False) + "\n"


def render_all():
    """{file name: text} of every shipped cassette."""
    gpu_note = ("real Triton code for a CUDA GPU (Triton 3.x); the persistent kernel is "
                "resources/showcase/%s.py by the GPU engineer; on a machine without a GPU the "
                "candidates evaluate as no_gpu")
    out = {}
    for task, cell, hidden in (("39_GRU", "GRU", False), ("40_GRUHidden", "GRU", True), ("37_LSTMCn", "LSTM", True)):
        ex, story = rnn_cassette(task, cell, hidden)
        out[task + ".json"] = render(task, ex, story, gpu_note % task)
    ex, story = relu_cassette()
    out["1_ReLU.json"] = render("1_ReLU", ex, story,
                                "plain PyTorch (runs on CPU): the loop's story on a machine without a GPU")
    return out


def main(argv):
    stale = []
    for name, text in render_all().items():
        path = os.path.join(HERE, name)
        if "--check" in argv:
            with open(path, encoding="utf-8") as f:
                if f.read() != text:
                    stale.append(path)
            continue
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        print("wrote", path, len(json.loads(text)["exchanges"]), "exchanges")
    for path in stale:
        print("make_cassettes: %s is not what the script and the showcase sources give: run %s" % (
            path, os.path.abspath(__file__)), file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
