# HONEST (lstm_fc_small): the last step's output equals the top layer's h_n; uses h_n[-1] (a contiguous view into
# the fresh h_n) and addmm into a fresh output; a forward pre-hook that passes the inputs through unchanged.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, input_size, hidden_size, num_layers, output_size, dropout=0.0):
        super(ModelNew, self).__init__()
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.lstm = nn.LSTM(input_size, hidden_size, num_layers, batch_first=True, dropout=dropout,
                            bidirectional=False)
        self.fc = nn.Linear(hidden_size, output_size)
        self.register_forward_pre_hook(lambda m, a: None)

    def forward(self, x, h0=None, c0=None):
        b = x.size(0)
        if h0 is None:
            h0 = torch.randn(self.num_layers, b, self.hidden_size, device=x.device, dtype=x.dtype)
        if c0 is None:
            c0 = torch.randn(self.num_layers, b, self.hidden_size, device=x.device, dtype=x.dtype)
        _, (h_n, _) = self.lstm(x, (h0, c0))
        return torch.addmm(self.fc.bias, h_n[-1], self.fc.weight.t())
