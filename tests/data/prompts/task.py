import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, input_size, hidden_size, num_layers=3):
        super().__init__()
        self.gru = nn.GRU(input_size, hidden_size, num_layers, batch_first=False)

    def forward(self, x, h0):
        output, h_n = self.gru(x, h0)
        return h_n


def get_inputs():
    return [torch.rand(8, 2, 4), torch.rand(3, 2, 16)]


def get_init_inputs():
    return [4, 16, 3]
