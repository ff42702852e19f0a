# SPDX-License-Identifier: MIT
# KernelBench level 3, task 39_GRU: 6-layer GRU, returns the whole output sequence.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, input_size, hidden_size, num_layers=3, bias=True, batch_first=False):
        """
        :param input_size: features of the input x
        :param hidden_size: features of the hidden state h
        :param num_layers: stacked GRU layers
        :param bias: whether the layers have b_ih and b_hh
        :param batch_first: False here: tensors are (seq_len, batch, feature)
        """
        super(Model, self).__init__()
        self.gru = nn.GRU(input_size, hidden_size, num_layers, bias, batch_first,
                          dropout=0, bidirectional=False)

    def forward(self, x, h0):
        """
        :param x: (seq_len, batch_size, input_size)
        :param h0: initial hidden state (num_layers, batch_size, hidden_size)
        :return: output (seq_len, batch_size, hidden_size)
        """
        output, h_n = self.gru(x, h0)
        return output


# === Test configuration ===
batch_size = 10
seq_len = 512
input_size = 128
hidden_size = 256
num_layers = 6


def get_inputs():
    return [torch.rand(seq_len, batch_size, input_size),
            torch.rand(num_layers, batch_size, hidden_size)]


def get_init_inputs():
    return [input_size, hidden_size, num_layers]
