# SPDX-License-Identifier: MIT
# A Mamba2-style task in closed form, as KernelBench level 3's Mamba2 tasks are written: the
# state-space recurrence h_t = exp(A_t) * h_{t-1} + B_t x_t^T is evaluated per chunk with
# cumulative sums and einsums, with no time loop in the reference at all. Returns only the final
# state (batch, n_heads, d_head, d_state). Recognised as a scan by the task's d_state constant.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, batch_size, seq_length, n_heads, d_head, d_state, block_len=64):
        super(Model, self).__init__()
        self.block_len = block_len
        self.A = nn.Parameter(-torch.rand(batch_size, seq_length, n_heads) * 0.1)
        self.B = nn.Parameter(torch.randn(batch_size, seq_length, n_heads, d_state))

    def forward(self, X):
        b, L, h, p = X.shape
        c = L // self.block_len
        A = self.A.view(b, c, self.block_len, h)
        Bc = self.B.view(b, c, self.block_len, h, -1)
        Xc = X.view(b, c, self.block_len, h, p)
        A_cum = torch.cumsum(A, dim=2)
        to_end = torch.exp(A_cum[:, :, -1:, :] - A_cum)  # decay from each step to the end of its chunk
        chunk_states = torch.einsum("bclh,bclhn,bclhp->bchpn", to_end, Bc, Xc)
        chunk_cum = torch.cumsum(A_cum[:, :, -1, :], dim=1)  # (b, c, h)
        w = torch.exp(chunk_cum[:, :, None, :] - chunk_cum[:, None, :, :])
        keep = torch.tril(torch.ones(c, c, dtype=torch.bool, device=X.device))
        w = w.masked_fill(~keep[None, :, :, None], 0.0)
        states = torch.einsum("bzch,bchpn->bzhpn", w, chunk_states)
        return states[:, -1]


batch_size = 4
seq_length = 256
n_heads = 4
d_head = 32
d_state = 16
block_len = 64


def get_inputs():
    return [torch.randn(batch_size, seq_length, n_heads, d_head)]


def get_init_inputs():
    return [batch_size, seq_length, n_heads, d_head, d_state, block_len]
