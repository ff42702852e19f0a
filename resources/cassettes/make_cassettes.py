#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the shipped replay cassettes (resources/cassettes/<task>.json) for `kwb run` without an
API key. Every answer is authored by the Kernel Workbench developers, not produced by a model; the
cassette's metadata says so. Standard library only.

The cassettes tell the seeds' story (docs/pipeline.md): a naive seed whose time loop runs in Python
(one launch per step and layer), a seed that fails to compile (tl.tanh is missing in Triton 3.x)
and its repair, an algorithm analysis as JSON, a persistent kernel (resources/showcase/<task>.py,
the GPU engineer's kernel, read when this script runs), and a tuning stage that would regress
(kept in the tree, not selected; the detectors' policy skips the stages on a good persistent kernel,
so it only runs when the policy asks for stages). 1_ReLU tells the same story in plain PyTorch so
the whole loop replays on a CPU machine.

Prompt hashes: the prompts hold measured figures (latencies, the device name), so a recording
never matches another machine byte for byte; `kwb run` replays shipped cassettes leniently and says
so. `kwb run TASK --cassette FILE --record-cassette FILE` rewrites the recorded prompts and hashes
of the calls a run made from the current templates (the others are kept as they are).

Run: python3 resources/cassettes/make_cassettes.py
"""
import json
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
SHOWCASE = os.path.join(HERE, "..", "showcase")

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


def showcase(task):
    path = os.path.join(SHOWCASE, task + ".py")
    with open(path, encoding="utf-8") as f:
        return f.read()


def regressing_stage(code):
    # A "grid" change an LLM could well propose: fewer, fatter programs (2 hidden slices per batch
    # row instead of 8), each keeping half of W_hh. Correct, but the slices spill
    # registers: slower (the seeds' stage 1 story).
    new, n = re.subn(r'"gru_uni": \((\d+), (\d+)\)', r'"gru_uni": (2, \2)', code, count=1)
    if n == 0:
        raise SystemExit("showcase config (S, W) not found: update regressing_stage()")
    return new


def analysis(output_requirement, returns):
    return {
        "worth_optimizing": "yes",
        "reason": "the time loop runs in Python: seq_len x num_layers = 3072 launches of a small kernel, "
                  "each reloading W_hh; the GPU idles between launches",
        "bottleneck": "kernel launch overhead and W_hh reloads per step (launch-bound, not compute-bound)",
        "optimisation_method": "hybrid persistent kernel: one GEMM for the input gates of all steps, "
                               "then one launch per layer with the time loop inside",
        "modification_plan": "1) per layer, compute x @ W_ih^T + b for every step with one Triton GEMM "
                             "(fp32, input_precision='ieee'); 2) one persistent launch runs t = 0..T-1, "
                             "programs split batch rows x hidden slices, keep their W_hh slice in registers "
                             "and exchange h(t-1) through global memory behind an acquire/release barrier; "
                             "3) " + returns,
        "expected_speedup": "5-20x over the naive kernel",
        "implementation_complexity": "persistent",
        "kernel_type": "recurrent (GRU), persistent",
        "output_requirement": output_requirement,
    }


def gru_cassette(task, hidden_only):
    returns = ("return only h_n: write the sequence only where the next layer needs it"
               if hidden_only else "return the whole output sequence of the last layer")
    req = "final_hidden_only" if hidden_only else "full_sequence"
    persistent = showcase(task)
    ex = [
        ("seed1", fence("A first Triton version: one kernel computes a GRU step; the forward walks the time "
                        "steps and layers.", gru_naive("2.0 * tl.sigmoid(2.0 * n_pre) - 1.0", hidden_only))),
        ("seed2", fence("Triton GRU, one launch per time step, with the tanh from triton.language.",
                        gru_naive("tl.tanh(n_pre)", hidden_only))),
        ("seed2_repair1", fence("`tl.tanh` does not exist in Triton 3.x (AttributeError at compile time). "
                                "Use libdevice's tanh instead; nothing else changes.",
                                gru_naive("libdevice.tanh(n_pre)", hidden_only,
                                          "from triton.language.extra.cuda import libdevice\n"))),
        ("algorithm_analysis_seed1", fence("Analysis of the seed kernel:",
                                           json.dumps(analysis(req, returns), indent=2) + "\n", "json")),
        ("algorithm_optimized_seed1", fence("The hybrid persistent design from the analysis; the reference "
                                            "returns %s, so the kernel does exactly that." %
                                            ("h_n only" if hidden_only else "the whole sequence"), persistent)),
        ("algorithm_analysis_seed2", fence("Analysis:", json.dumps(dict(
            analysis(req, returns), worth_optimizing="no",
            reason="the same per-step design as seed 1, whose rewrite covers it; a second persistent "
                   "rewrite would duplicate that work"), indent=2) + "\n", "json")),
        ("stage_grid", fence("Grid stage: 2 hidden slices per batch row instead of 8, so fewer programs "
                             "take part in each step's barrier.", regressing_stage(persistent))),
    ]
    story = [
        "seed1: correct but launch-bound (Python time loop: 3072 launches)",
        "seed2: compile error, tl.tanh is missing in Triton 3.x; seed2_repair1 uses libdevice.tanh",
        "algorithm_analysis_seed1: JSON, implementation_complexity persistent, output_requirement " + req,
        "algorithm_optimized_seed1: the persistent hybrid kernel (resources/showcase/%s.py)" % task,
        "algorithm_analysis_seed2: not worth optimizing",
        "stage_grid: a tuning stage that regresses (register spills); only asked when the policy runs stages",
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


def write(task, exchanges, story, note):
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
    path = os.path.join(HERE, task + ".json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(cassette, f, indent=1, ensure_ascii=False)
        f.write("\n")
    print("wrote", path, len(exchanges), "exchanges")


def main():
    gpu_note = ("real Triton code for a CUDA GPU (Triton 3.x); the persistent kernel is "
                "resources/showcase/%s.py by the GPU engineer; on a machine without a GPU the "
                "candidates evaluate as no_gpu")
    for task, hidden in (("39_GRU", False), ("40_GRUHidden", True)):
        ex, story = gru_cassette(task, hidden)
        write(task, ex, story, gpu_note % task)
    ex, story = relu_cassette()
    write("1_ReLU", ex, story, "plain PyTorch (runs on CPU): the loop's story on a machine without a GPU")


if __name__ == "__main__":
    main()
