# SPDX-License-Identifier: MIT
# Corpus: the Mamba-style selective scan for a task that returns only the final state, written the
# 40_GRUHidden way: the kernel keeps the state on chip across the sequence (a persistent kernel with
# no weight matrix: h = exp(dt * A) * h + dt * x * B) but also stores the state of every time step
# into a (batch, seq_len, d_model, d_state) history, and forward returns its last step.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def selective_scan_kernel(x_ptr, dt_ptr, b_ptr, a_ptr, hs_ptr, L, D,
                          N: tl.constexpr, BLOCK_D: tl.constexpr):
    pid_b = tl.program_id(0)
    pid_d = tl.program_id(1)
    offs_d = pid_d * BLOCK_D + tl.arange(0, BLOCK_D)
    offs_n = tl.arange(0, N)
    mask_d = offs_d < D
    a = tl.load(a_ptr + offs_d[:, None] * N + offs_n[None, :], mask=mask_d[:, None], other=0.0)
    h = tl.zeros([BLOCK_D, N], dtype=tl.float32)
    for step in range(L):
        row = pid_b * L + step
        xt = tl.load(x_ptr + row * D + offs_d, mask=mask_d, other=0.0)
        dt = tl.load(dt_ptr + row * D + offs_d, mask=mask_d, other=0.0)
        bt = tl.load(b_ptr + row * N + offs_n)
        h = tl.exp(dt[:, None] * a) * h + (dt * xt)[:, None] * bt[None, :]
        tl.store(hs_ptr + (row * D + offs_d[:, None]) * N + offs_n[None, :], h, mask=mask_d[:, None])


class ModelNew(nn.Module):
    def __init__(self, d_model, d_state):
        super().__init__()
        a = torch.arange(1, d_state + 1, dtype=torch.float32).repeat(d_model, 1)
        self.A_log = nn.Parameter(torch.log(a))

    def forward(self, x, delta, B):
        batch, L, d = x.shape
        n = self.A_log.shape[1]
        A = (-torch.exp(self.A_log)).contiguous()
        hs = torch.empty(batch, L, d, n, device=x.device, dtype=x.dtype)
        grid = (batch, triton.cdiv(d, 32))
        selective_scan_kernel[grid](x.contiguous(), delta.contiguous(), B.contiguous(), A, hs, L, d,
                                    N=n, BLOCK_D=32)
        return hs[:, -1]
