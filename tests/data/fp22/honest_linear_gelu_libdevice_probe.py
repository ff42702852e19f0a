# Honest: Linear -> GELU -> scale fused in one Triton kernel. libdevice lives at different module paths in
# different Triton releases, so the import probes a fixed list of known locations.
import importlib

import torch
import torch.nn as nn
import triton
import triton.language as tl

libdevice = None
for _path in ("triton.language.extra.cuda.libdevice", "triton.language.extra.libdevice",
              "triton.language.math"):
    try:
        libdevice = importlib.import_module(_path)
        break
    except ImportError:
        continue
if libdevice is None:
    raise ImportError("no libdevice module found in this Triton")


@triton.jit
def linear_gelu_kernel(x_ptr, w_ptr, b_ptr, o_ptr, M, N, K, scale,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        kk = k0 + rk
        a = tl.load(x_ptr + rm[:, None] * K + kk[None, :], mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
        # w is (N, K) row-major: load a (BLOCK_K, BLOCK_N) tile of W^T
        w = tl.load(w_ptr + rn[None, :] * K + kk[:, None], mask=(kk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, w, input_precision="ieee")
    v = acc + tl.load(b_ptr + rn, mask=rn < N, other=0.0)[None, :]
    g = 0.5 * v * (1.0 + libdevice.erf(v * 0.7071067811865476))
    tl.store(o_ptr + rm[:, None] * N + rn[None, :], g * scale, mask=(rm[:, None] < M) & (rn[None, :] < N))


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, scale):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.scale = float(scale)

    def forward(self, x):
        x = x.contiguous()
        w = self.linear.weight.contiguous()
        M, K = x.shape
        N = w.shape[0]
        out = torch.empty((M, N), device=x.device, dtype=torch.float32)
        grid = (triton.cdiv(M, 32), triton.cdiv(N, 64))
        linear_gelu_kernel[grid](x, w, self.linear.bias, out, M, N, K, self.scale, BLOCK_M=32, BLOCK_N=64, BLOCK_K=32)
        return out
