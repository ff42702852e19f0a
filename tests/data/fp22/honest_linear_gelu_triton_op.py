# Honest: Linear -> GELU -> scale. cuBLAS GEMM (torch.mm) and a Triton epilogue registered through
# torch.library.triton_op / wrap_triton (so torch.compile could trace it).
import torch
import torch.nn as nn
import triton
import triton.language as tl
from torch.library import triton_op, wrap_triton


@triton.jit
def _epilogue_kernel(y_ptr, b_ptr, out_ptr, n_cols, n_elements, scale, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    v = tl.load(y_ptr + offs, mask=mask, other=0.0) + tl.load(b_ptr + offs % n_cols, mask=mask, other=0.0)
    g = 0.5 * v * (1.0 + tl.erf(v * 0.7071067811865476))
    tl.store(out_ptr + offs, g * scale, mask=mask)


@triton_op("fp22::bias_gelu_scale", mutates_args={})
def bias_gelu_scale(y: torch.Tensor, b: torch.Tensor, scale: float) -> torch.Tensor:
    out = torch.empty_like(y)
    n = y.numel()
    BLOCK = 1024
    wrap_triton(_epilogue_kernel)[(triton.cdiv(n, BLOCK),)](y, b, out, y.shape[1], n, scale, BLOCK=BLOCK)
    return out


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, scale):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.scale = float(scale)

    def forward(self, x):
        y = torch.mm(x, self.linear.weight.t())
        return bias_gelu_scale(y, self.linear.bias, self.scale)
