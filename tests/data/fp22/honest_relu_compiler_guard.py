# Honest: Triton ReLU with eager-only input validation skipped while torch.compile traces (the pattern
# used by many libraries: checks that would graph-break).
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    tl.store(y_ptr + offs, tl.maximum(x, 0.0), mask=m)


def _check(x):
    if not x.is_cuda:
        raise ValueError("relu_kernel needs a CUDA tensor")
    if x.dtype != torch.float32:
        raise TypeError(f"relu_kernel is written for float32, got {x.dtype}")


class ModelNew(nn.Module):
    def forward(self, x):
        if not torch.compiler.is_compiling():
            _check(x)
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        relu_kernel[(triton.cdiv(n, 2048),)](x, y, n, BLOCK=2048, num_warps=8)
        return y
