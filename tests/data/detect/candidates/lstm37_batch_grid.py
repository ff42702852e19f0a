# SPDX-License-Identifier: MIT
# Corpus: the 37_LSTMCn repaired algo-opt kernel (0.25x): persistent, but the grid covers the batch
# only (`return (max(1, B),)`, 10 programs) and the recurrent product is a serial
# `for k in range(HIDDEN_SIZE)` loop of scalar x vector products.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def lstm_persistent_layer_kernel(gx_ptr, w_hh_ptr, h_state_ptr, c_out_ptr, B, stride_state_b,
                                 HIDDEN_SIZE: tl.constexpr, SEQ_LEN: tl.constexpr):
    b = tl.program_id(0)
    if b >= B:
        return
    hid_idx = tl.arange(0, HIDDEN_SIZE)
    c = tl.zeros([HIDDEN_SIZE], dtype=tl.float32)
    h = tl.load(h_state_ptr + b * stride_state_b + hid_idx)
    for t in range(SEQ_LEN):
        gi = tl.load(gx_ptr + (b * SEQ_LEN + t) * 4 * HIDDEN_SIZE + hid_idx)
        gf = tl.load(gx_ptr + (b * SEQ_LEN + t) * 4 * HIDDEN_SIZE + HIDDEN_SIZE + hid_idx)
        gg = tl.load(gx_ptr + (b * SEQ_LEN + t) * 4 * HIDDEN_SIZE + 2 * HIDDEN_SIZE + hid_idx)
        go = tl.load(gx_ptr + (b * SEQ_LEN + t) * 4 * HIDDEN_SIZE + 3 * HIDDEN_SIZE + hid_idx)
        for k in range(HIDDEN_SIZE):
            h_k = tl.load(h_state_ptr + b * stride_state_b + k)
            row_off = k * 4 * HIDDEN_SIZE
            gi += h_k * tl.load(w_hh_ptr + row_off + hid_idx)
            gf += h_k * tl.load(w_hh_ptr + row_off + HIDDEN_SIZE + hid_idx)
            gg += h_k * tl.load(w_hh_ptr + row_off + 2 * HIDDEN_SIZE + hid_idx)
            go += h_k * tl.load(w_hh_ptr + row_off + 3 * HIDDEN_SIZE + hid_idx)
        i = tl.sigmoid(gi)
        f = tl.sigmoid(gf)
        g = 2.0 * tl.sigmoid(2.0 * gg) - 1.0
        o = tl.sigmoid(go)
        c = f * c + i * g
        h = o * (2.0 * tl.sigmoid(2.0 * c) - 1.0)
        tl.debug_barrier()
        tl.store(h_state_ptr + b * stride_state_b + hid_idx, h)
    tl.store(c_out_ptr + b * HIDDEN_SIZE + hid_idx, c)


class ModelNew(nn.Module):
    def __init__(self, input_size, hidden_size, num_layers, output_size, dropout=0.0):
        super().__init__()
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.w_ih = nn.ParameterList([nn.Parameter(torch.randn(4 * hidden_size, input_size if i == 0 else hidden_size))
                                      for i in range(num_layers)])
        self.w_hh = nn.ParameterList([nn.Parameter(torch.randn(4 * hidden_size, hidden_size))
                                      for i in range(num_layers)])

    def forward(self, x, h0, c0):
        B, T, _ = x.shape
        H = self.hidden_size
        c_n = torch.empty(self.num_layers, B, H, device=x.device)
        inp = x
        for layer in range(self.num_layers):
            gx = torch.matmul(inp, self.w_ih[layer].t()).contiguous()
            h_state = h0[layer].contiguous().clone()

            def grid(meta):
                return (max(1, B),)

            lstm_persistent_layer_kernel[grid](gx, self.w_hh[layer].t().contiguous(), h_state, c_n[layer],
                                               B, h_state.stride(0), HIDDEN_SIZE=H, SEQ_LEN=T)
            inp = h_state.unsqueeze(1).expand(B, T, H).contiguous()
        return c_n
