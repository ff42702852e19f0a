# SPDX-License-Identifier: MIT
# Corpus (clean): names, comments and strings that a regular expression would mistake for findings.
# for t in range(T): h = tl.tanh(h)   <- a comment, not code
# torch.cuda.graph, torch.cuda.Stream(), threading.Thread, nn.GRU, class ModelNew(Model)
import torch
import torch.nn as nn
import triton
import triton.language as tl

NOTES = """
@triton.jit
def fake(x_ptr, T):
    for t in range(T):
        h = tl.tanh(h * 2)
__global__ void k(float* h) { for (int t = 0; t < T; ++t) { for (;;) {} h[0] = h[0] * 2; } }
torch.cuda.Event.elapsed_time = lambda *a: 0
"""
threading_free = True  # a name that only looks like a module
tanh = "tl.tanh"


@triton.jit
def relu_kernel(x_ptr, y_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    """for t in range(seq_len): tl.tanh(x) -- a docstring"""
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    seq_len = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, tl.maximum(seq_len, 0.0), mask=mask)


class ModelNew(nn.Module):
    """Not a subclass of Model; never calls nn.GRU or torch.matmul."""

    def __init__(self):
        super().__init__()
        self.Model = "Model"
        self.cache_note = "results are never cached"

    def forward(self, x):
        y = torch.empty_like(x)
        n = x.numel()
        relu_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK_SIZE=1024)
        return y
