# SPDX-License-Identifier: MIT
# Deliberately wrong Triton ReLU: negative inputs get slope 0.1 instead of 0.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def bad_relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, tl.where(x > 0, x, 0.1 * x), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.zeros_like(x)
        n = x.numel()
        bad_relu_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
        return y
