# SPDX-License-Identifier: MIT
# KernelBench level 3, task 37_LSTMCn: 6-layer LSTM, returns the final cell state c_n.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, input_size, hidden_size, num_layers, output_size, dropout=0.0):
        """
        :param input_size: features of the input x
        :param hidden_size: features of the hidden state h
        :param num_layers: stacked LSTM layers
        :param output_size: features of the linear head
        :param dropout: dropout between LSTM layers (0 here)
        """
        super(Model, self).__init__()
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.lstm = nn.LSTM(input_size, hidden_size, num_layers,
                            batch_first=True, dropout=dropout, bidirectional=False)
        self.fc = nn.Linear(hidden_size, output_size)

    def forward(self, x, h0, c0):
        """
        :param x: (batch_size, sequence_length, input_size)
        :param h0: initial hidden state (num_layers, batch_size, hidden_size)
        :param c0: initial cell state (num_layers, batch_size, hidden_size)
        :return: c_n (num_layers, batch_size, hidden_size)
        """
        out, state = self.lstm(x, (h0, c0))
        return state[1]  # c_n


# === Test configuration ===
batch_size = 10
sequence_length = 512
input_size = 128
hidden_size = 256
num_layers = 6
output_size = 10
dropout = 0.0


def get_inputs():
    return [torch.rand(batch_size, sequence_length, input_size),
            torch.rand(num_layers, batch_size, hidden_size),
            torch.rand(num_layers, batch_size, hidden_size)]


def get_init_inputs():
    return [input_size, hidden_size, num_layers, output_size, dropout]
