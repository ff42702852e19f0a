# SPDX-License-Identifier: MIT
# A contractive recurrence for CPU tests: h_t = 0.5 h_{t-1} + x_t over 256 steps, the final state
# returned. In fp32 the first half of the sequence no longer reaches the output (0.5^128), as the
# early steps of KernelBench's randomly initialised LSTMs and GRUs do not: the judge's sensitivity
# probe must say so.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x):
        h = torch.zeros_like(x[:, 0])
        for t in range(x.shape[1]):
            h = 0.5 * h + x[:, t]
        return h


batch_size = 8
seq_len = 256
features = 32


def get_inputs():
    return [torch.rand(batch_size, seq_len, features)]


def get_init_inputs():
    return []
