# SPDX-License-Identifier: MIT
# A small Mamba-style task (the selective scan of KernelBench level 3's Mamba models, written as
# its time loop): h_t = exp(delta_t * A) * h_{t-1} + delta_t * B_t * x_t, y_t = h_t . C_t.
# Returns the whole output sequence y (batch, seq_len, d_model).
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, d_model, d_state):
        super(Model, self).__init__()
        a = torch.arange(1, d_state + 1, dtype=torch.float32).repeat(d_model, 1)
        self.A_log = nn.Parameter(torch.log(a))

    def forward(self, x, delta, B, C):
        A = -torch.exp(self.A_log)
        batch, L, d = x.shape
        h = torch.zeros(batch, d, A.shape[1], device=x.device, dtype=x.dtype)
        ys = []
        for t in range(L):
            decay = torch.exp(delta[:, t, :, None] * A)
            h = decay * h + delta[:, t, :, None] * B[:, t, None, :] * x[:, t, :, None]
            ys.append((h * C[:, t, None, :]).sum(-1))
        y = torch.stack(ys, dim=1)
        return y


batch_size = 4
seq_len = 256
d_model = 64
d_state = 16


def get_inputs():
    return [torch.randn(batch_size, seq_len, d_model), torch.rand(batch_size, seq_len, d_model) * 0.1,
            torch.randn(batch_size, seq_len, d_state), torch.randn(batch_size, seq_len, d_state)]


def get_init_inputs():
    return [d_model, d_state]
