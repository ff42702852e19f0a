# Honest: Linear -> GELU -> scale. cuBLAS GEMM (torch.matmul) and a Triton epilogue; the epilogue kernel is
# picked from two variants (vectorised when the row length is a multiple of 4) and launched through a local name.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _gelu_epilogue(y_ptr, b_ptr, n_cols, n_elements, scale, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    v = tl.load(y_ptr + offs, mask=mask, other=0.0) + tl.load(b_ptr + offs % n_cols, mask=mask, other=0.0)
    tl.store(y_ptr + offs, 0.5 * v * (1.0 + tl.erf(v * 0.7071067811865476)) * scale, mask=mask)


@triton.jit
def _gelu_epilogue_rows(y_ptr, b_ptr, n_cols, n_elements, scale, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    for c0 in range(0, n_cols, BLOCK):
        cols = c0 + tl.arange(0, BLOCK)
        mask = cols < n_cols
        v = tl.load(y_ptr + row * n_cols + cols, mask=mask, other=0.0) + tl.load(b_ptr + cols, mask=mask, other=0.0)
        tl.store(y_ptr + row * n_cols + cols, 0.5 * v * (1.0 + tl.erf(v * 0.7071067811865476)) * scale, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, scale):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.scale = float(scale)

    def forward(self, x):
        y = torch.matmul(x, self.linear.weight.t()).contiguous()
        M, N = y.shape
        if N % 4 == 0:
            kernel, grid = _gelu_epilogue_rows, (M,)
        else:
            kernel, grid = _gelu_epilogue, (triton.cdiv(y.numel(), 1024),)
        kernel[grid](y, self.linear.bias, N, y.numel(), self.scale, BLOCK=1024 if kernel is _gelu_epilogue else 512)
        return y
