# SPDX-License-Identifier: MIT
# Corpus (clean): the Mamba-style selective scan done right for a task that returns only the final
# state: the state stays on chip across the sequence and only h_T is written. The time loop is a
# `while` over a counter called `i`, and nothing in the loop reuses a weight matrix.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def scan_final_kernel(x_ptr, dt_ptr, b_ptr, a_ptr, out_ptr, L, D,
                      N: tl.constexpr, BLOCK_D: tl.constexpr):
    pid_b = tl.program_id(0)
    pid_d = tl.program_id(1)
    offs_d = pid_d * BLOCK_D + tl.arange(0, BLOCK_D)
    offs_n = tl.arange(0, N)
    mask_d = offs_d < D
    a = tl.load(a_ptr + offs_d[:, None] * N + offs_n[None, :], mask=mask_d[:, None], other=0.0)
    h = tl.zeros([BLOCK_D, N], dtype=tl.float32)
    i = 0
    while i < L:
        xt = tl.load(x_ptr + (pid_b * L + i) * D + offs_d, mask=mask_d, other=0.0)
        dt = tl.load(dt_ptr + (pid_b * L + i) * D + offs_d, mask=mask_d, other=0.0)
        bt = tl.load(b_ptr + (pid_b * L + i) * N + offs_n)
        h = tl.exp(dt[:, None] * a) * h + (dt * xt)[:, None] * bt[None, :]
        i += 1
    tl.store(out_ptr + (pid_b * D + offs_d[:, None]) * N + offs_n[None, :], h, mask=mask_d[:, None])


class ModelNew(nn.Module):
    def __init__(self, d_model, d_state):
        super().__init__()
        a = torch.arange(1, d_state + 1, dtype=torch.float32).repeat(d_model, 1)
        self.A_log = nn.Parameter(torch.log(a))

    def forward(self, x, delta, B):
        batch, L, d = x.shape
        n = self.A_log.shape[1]
        A = (-torch.exp(self.A_log)).contiguous()
        h = torch.empty(batch, d, n, device=x.device, dtype=x.dtype)
        grid = (batch, triton.cdiv(d, 32))
        scan_final_kernel[grid](x.contiguous(), delta.contiguous(), B.contiguous(), A, h, L, d, N=n, BLOCK_D=32)
        return h
