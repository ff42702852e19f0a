# HONEST (lstm_fc_small): h0/c0 drawn like the task (torch.randn, same order), the head applied to EVERY step and
# the last step returned as a NON-CONTIGUOUS slice y[:, -1, :] of that fresh tensor (the runner copies it).
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

    def forward(self, x, h0=None, c0=None):
        b = x.size(0)
        if h0 is None:
            h0 = torch.randn(self.num_layers, b, self.hidden_size, device=x.device, dtype=x.dtype)
        if c0 is None:
            c0 = torch.randn(self.num_layers, b, self.hidden_size, device=x.device, dtype=x.dtype)
        out, (h_n, c_n) = self.lstm(x, (h0, c0))
        y = self.fc(out)          # (b, seq, out) fresh
        return y[:, -1, :]        # non-contiguous view of it
