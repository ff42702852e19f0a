# SPDX-License-Identifier: MIT
# Corpus: a launch-bound Python time loop hidden in a helper: forward calls self._layer once per
# layer, and _layer loops `for step in range(inp.size(0))` launching one fused step kernel.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def gru_step_kernel(gx_ptr, w_ptr, h_ptr, out_ptr, B, H: tl.constexpr, BLOCK_H: tl.constexpr):
    pb = tl.program_id(0)
    ph = tl.program_id(1)
    cols = ph * BLOCK_H + tl.arange(0, BLOCK_H)
    ks = tl.arange(0, H)
    h_all = tl.load(h_ptr + pb * H + ks)
    w = tl.load(w_ptr + ks[:, None] * (3 * H) + cols[None, :])
    gh = tl.sum(h_all[:, None] * w, axis=0)
    g = tl.load(gx_ptr + pb * 3 * H + cols)
    z = tl.sigmoid(g + gh)
    h_old = tl.load(h_ptr + pb * H + cols)
    tl.store(out_ptr + pb * H + cols, z * h_old + (1.0 - z) * g)


class ModelNew(nn.Module):
    def __init__(self, input_size, hidden_size, num_layers=3, bias=True, batch_first=False):
        super().__init__()
        self.hidden_size = hidden_size
        self.layers = num_layers
        self.w_ih = nn.ParameterList([nn.Parameter(torch.randn(3 * hidden_size, input_size if i == 0 else hidden_size))
                                      for i in range(num_layers)])
        self.w_hh = nn.ParameterList([nn.Parameter(torch.randn(hidden_size, 3 * hidden_size))
                                      for i in range(num_layers)])

    def _layer(self, inp, h, w_ih, w_hh):
        H = self.hidden_size
        gx = torch.nn.functional.linear(inp, w_ih)
        out = torch.empty(inp.size(0), inp.size(1), H, device=inp.device)
        for step in range(inp.size(0)):
            gru_step_kernel[(inp.size(1), triton.cdiv(H, 64))](gx[step], w_hh, h, out[step], inp.size(1),
                                                               H=256, BLOCK_H=64)
            h = out[step]
        return out, h

    def forward(self, x, h0):
        finals = []
        inp = x
        for i in range(self.layers):
            inp, h_last = self._layer(inp, h0[i].contiguous(), self.w_ih[i], self.w_hh[i])
            finals.append(h_last)
        return torch.stack(finals)
