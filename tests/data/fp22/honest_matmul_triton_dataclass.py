# Honest: fp32 matmul in Triton; tile settings live in a frozen dataclass whose __post_init__ normalises a
# field with object.__setattr__ (the frozen-dataclass idiom), and dataclasses.replace derives variants.
import dataclasses
from dataclasses import dataclass, field

import torch
import torch.nn as nn
import triton
import triton.language as tl


@dataclass(frozen=True)
class TileConfig:
    block_m: int = 64
    block_n: int = 64
    block_k: int = 32
    num_warps: int = 4
    num_stages: int = 3
    tags: tuple = field(default_factory=tuple)

    def __post_init__(self):
        if self.num_stages < 1:
            object.__setattr__(self, "num_stages", 1)
        object.__setattr__(self, "tags", tuple(sorted(self.tags)))

    def describe(self):
        return f"{type(self).__name__}({', '.join(f'{f.name}={getattr(self, f.name)}' for f in dataclasses.fields(self))})"


@triton.jit
def matmul_code_kernel(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        kk = k0 + rk
        a = tl.load(a_ptr + rm[:, None] * sam + kk[None, :] * sak, mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + kk[:, None] * sbk + rn[None, :] * sbn, mask=(kk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b, input_precision="ieee")
    tl.store(c_ptr + rm[:, None] * scm + rn[None, :] * scn, acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


DEFAULT = TileConfig(tags=("fp32", "ieee"))
SMALL = dataclasses.replace(DEFAULT, block_m=32, block_n=32)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.cfg = DEFAULT

    def extra_repr(self):
        return self.cfg.describe()

    def forward(self, A, B):
        M, K = A.shape
        _, N = B.shape
        cfg = SMALL if M * N <= 128 * 128 else self.cfg
        C = torch.empty((M, N), device=A.device, dtype=torch.float32)
        grid = (triton.cdiv(M, cfg.block_m), triton.cdiv(N, cfg.block_n))
        matmul_code_kernel[grid](A, B, C, M, N, K, A.stride(0), A.stride(1), B.stride(0), B.stride(1),
                                 C.stride(0), C.stride(1), BLOCK_M=cfg.block_m, BLOCK_N=cfg.block_n,
                                 BLOCK_K=cfg.block_k, num_warps=cfg.num_warps, num_stages=cfg.num_stages)
        return C
