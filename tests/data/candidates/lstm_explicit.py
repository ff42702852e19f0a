# SPDX-License-Identifier: MIT
# Correct pure-PyTorch LSTM with explicit gate math (no nn.LSTM) for tests/data/tasks/lstm_small.py
# (returns c_n) and, copied to a file name containing "fc", lstm_fc_small.py (35_LSTM's structure:
# linear head on the last step, h0/c0 drawn with torch.randn in forward when absent). Parameters
# are created and initialised in nn.LSTM's order, then the linear head, as the reference does, so
# the evaluator's seeding gives it the reference's weights (and the same h0/c0 draws).
import math
import os

import torch
import torch.nn as nn

RETURN_FC = "fc" in os.path.basename(__file__)


class ModelNew(nn.Module):
    def __init__(self, input_size, hidden_size, num_layers, output_size, dropout=0.0):
        super().__init__()
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.params = nn.ParameterList()
        for layer in range(num_layers):
            in_size = input_size if layer == 0 else hidden_size
            self.params.append(nn.Parameter(torch.empty(4 * hidden_size, in_size)))
            self.params.append(nn.Parameter(torch.empty(4 * hidden_size, hidden_size)))
            self.params.append(nn.Parameter(torch.empty(4 * hidden_size)))
            self.params.append(nn.Parameter(torch.empty(4 * hidden_size)))
        stdv = 1.0 / math.sqrt(hidden_size)
        for p in self.params:
            nn.init.uniform_(p, -stdv, stdv)
        self.fc = nn.Linear(hidden_size, output_size)

    def forward(self, x, h0=None, c0=None):
        H = self.hidden_size
        if h0 is None:  # the same draws, in the same order, as the reference
            h0 = torch.randn(self.num_layers, x.size(0), H, device=x.device, dtype=x.dtype)
        if c0 is None:
            c0 = torch.randn(self.num_layers, x.size(0), H, device=x.device, dtype=x.dtype)
        layer_in = x  # (batch, seq_len, features): batch_first
        c_n = []
        for layer in range(self.num_layers):
            w_ih, w_hh, b_ih, b_hh = self.params[4 * layer:4 * layer + 4]
            gi_all = layer_in @ w_ih.t() + b_ih
            h, c = h0[layer], c0[layer]
            outs = []
            for t in range(layer_in.shape[1]):
                g = gi_all[:, t] + h @ w_hh.t() + b_hh
                i = torch.sigmoid(g[:, :H])
                f = torch.sigmoid(g[:, H:2 * H])
                gg = torch.tanh(g[:, 2 * H:3 * H])
                o = torch.sigmoid(g[:, 3 * H:])
                c = f * c + i * gg
                h = o * torch.tanh(c)
                outs.append(h)
            layer_in = torch.stack(outs, 1)
            c_n.append(c)
        if RETURN_FC:
            return self.fc(layer_in[:, -1, :])
        return torch.stack(c_n, 0)
