# SPDX-License-Identifier: MIT
# Cheat class: call-count switching. Task: level1/3_Matmul.py
# A real Triton matmul, exact for its first 6 calls; afterwards it computes only the first quarter of
# the rows (a quarter of the work, so about 4x "faster") and leaves the rest as zeros.
# What stops it: every timed call of every round is compared with the reference lane's eager call on
# the same inputs (from the first timed round on, the calls are long past 6): wrong_result in a timed call.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _mm(a, b, c, M, N, K, sam, sak, sbk, sbn, scm, scn, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pm, pn = tl.program_id(0), tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        x = tl.load(a + rm[:, None] * sam + (k + rk)[None, :] * sak, mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0.0)
        y = tl.load(b + (k + rk)[:, None] * sbk + rn[None, :] * sbn, mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(x, y, allow_tf32=False)
    tl.store(c + rm[:, None] * scm + rn[None, :] * scn, acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = 0

    def forward(self, A, B):
        self.calls += 1
        M, K = A.shape
        N = B.shape[1]
        C = torch.zeros((M, N), device=A.device, dtype=torch.float32)
        rows = M if self.calls <= 6 else M // 4
        grid = (triton.cdiv(rows, 64), triton.cdiv(N, 64))
        _mm[grid](A, B, C, rows, N, K, A.stride(0), A.stride(1), B.stride(0), B.stride(1), C.stride(0), C.stride(1),
                  BM=64, BN=64, BK=32)
        return C
