# SPDX-License-Identifier: MIT
# Reduced-shape 35_LSTM for CPU tests: linear head on the last step; h0/c0 drawn in forward when absent.
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

    def forward(self, x, h0=None, c0=None):
        """
        :param x: (batch_size, sequence_length, input_size)
        :param h0: optional initial hidden state (num_layers, batch_size, hidden_size)
        :param c0: optional initial cell state (num_layers, batch_size, hidden_size)
        :return: (batch_size, output_size)
        """
        batch_size = x.size(0)
        if h0 is None:
            h0 = torch.randn(self.num_layers, batch_size, self.hidden_size, device=x.device, dtype=x.dtype)
        if c0 is None:
            c0 = torch.randn(self.num_layers, batch_size, self.hidden_size, device=x.device, dtype=x.dtype)
        out, _ = self.lstm(x, (h0, c0))  # out: (batch_size, seq_length, hidden_size)
        out = self.fc(out[:, -1, :])  # out: (batch_size, output_size)
        return out


# === Test configuration ===
batch_size = 2
sequence_length = 8
input_size = 8
hidden_size = 16
num_layers = 2
output_size = 10
dropout = 0.0


def get_inputs():
    return [torch.rand(batch_size, sequence_length, input_size)]


def get_init_inputs():
    return [input_size, hidden_size, num_layers, output_size, dropout]
