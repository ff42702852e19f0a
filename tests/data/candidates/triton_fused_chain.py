# SPDX-License-Identifier: MIT
# Honest fused Triton kernel for tests/data/tasks/elementwise_chain.py: tanh(x) * sigmoid(x) + 0.5 * x in
# one pass over memory (eager runs five kernels). Full fp32; tanh as 2 * sigmoid(2x) - 1 (Triton 3.6 has
# no tl.tanh).
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def chain_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    t = 2.0 * tl.sigmoid(2.0 * x) - 1.0
    tl.store(y_ptr + offs, t * tl.sigmoid(x) + 0.5 * x, mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        chain_kernel[(triton.cdiv(n, 4096),)](x, y, n, BLOCK=4096)
        return y
