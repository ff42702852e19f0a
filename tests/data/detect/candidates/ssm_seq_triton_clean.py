# SPDX-License-Identifier: MIT
# Corpus (clean): the Mamba-style selective scan for a task that returns the whole output sequence:
# y_t = sum_n h_t[:, n] * C_t[n] is stored at every step, as the task requires. Persistent (the
# state is carried on chip across the sequence) although no weight matrix is reused per step.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def scan_seq_kernel(x_ptr, dt_ptr, b_ptr, c_ptr, a_ptr, y_ptr, L, D,
                    N: tl.constexpr, BLOCK_D: tl.constexpr):
    pid_b = tl.program_id(0)
    pid_d = tl.program_id(1)
    offs_d = pid_d * BLOCK_D + tl.arange(0, BLOCK_D)
    offs_n = tl.arange(0, N)
    mask_d = offs_d < D
    a = tl.load(a_ptr + offs_d[:, None] * N + offs_n[None, :], mask=mask_d[:, None], other=0.0)
    h = tl.zeros([BLOCK_D, N], dtype=tl.float32)
    for tok in tl.range(0, L):
        base = pid_b * L + tok
        xt = tl.load(x_ptr + base * D + offs_d, mask=mask_d, other=0.0)
        dt = tl.load(dt_ptr + base * D + offs_d, mask=mask_d, other=0.0)
        bt = tl.load(b_ptr + base * N + offs_n)
        ct = tl.load(c_ptr + base * N + offs_n)
        h = tl.exp(dt[:, None] * a) * h + (dt * xt)[:, None] * bt[None, :]
        tl.store(y_ptr + base * D + offs_d, tl.sum(h * ct[None, :], axis=1), mask=mask_d)


class ModelNew(nn.Module):
    def __init__(self, d_model, d_state):
        super().__init__()
        a = torch.arange(1, d_state + 1, dtype=torch.float32).repeat(d_model, 1)
        self.A_log = nn.Parameter(torch.log(a))

    def forward(self, x, delta, B, C):
        batch, L, d = x.shape
        n = self.A_log.shape[1]
        A = (-torch.exp(self.A_log)).contiguous()
        y = torch.empty(batch, L, d, device=x.device, dtype=x.dtype)
        grid = (batch, triton.cdiv(d, 32))
        scan_seq_kernel[grid](x.contiguous(), delta.contiguous(), B.contiguous(), C.contiguous(), A, y, L, d,
                              N=n, BLOCK_D=32)
        return y
