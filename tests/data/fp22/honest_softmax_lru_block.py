# Honest: row softmax in Triton; the launch configuration for a row length is computed once per length
# with functools.lru_cache (a config, never an output).
import functools

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    e = tl.where(mask, tl.exp(x), 0.0)
    tl.store(y_ptr + row * stride + cols, e / tl.sum(e, axis=0), mask=mask)


@functools.lru_cache(maxsize=None)
def launch_config(n_cols):
    block = triton.next_power_of_2(n_cols)
    num_warps = 4 if block <= 1024 else (8 if block <= 4096 else 16)
    return block, num_warps


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        rows, cols = x.shape
        y = torch.empty_like(x)
        block, num_warps = launch_config(cols)
        softmax_kernel[(rows,)](x, y, cols, x.stride(0), BLOCK=block, num_warps=num_warps)
        return y
