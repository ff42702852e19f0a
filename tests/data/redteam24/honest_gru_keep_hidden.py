# HONEST (gru_small): calls the GRU as the task does, keeps the LAST FINAL hidden state (h_n) on the module (state
# kept, never returned or reused as input), and returns the output sequence through .contiguous() (a no-op here).
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, input_size, hidden_size, num_layers=3, bias=True, batch_first=False):
        super(ModelNew, self).__init__()
        self.gru = nn.GRU(input_size, hidden_size, num_layers, bias, batch_first, dropout=0, bidirectional=False)
        self.h_last = None

    def forward(self, x, h0):
        output, h_n = self.gru(x, h0)
        self.h_last = h_n.detach()
        return output.contiguous()
