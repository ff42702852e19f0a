# HONEST (gru_small): the task's nn.GRU's parameters, run step by step with the functional GRU cell; hidden state
# handled per call (h0 per layer, made contiguous), the output sequence built with torch.stack (fresh).
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, input_size, hidden_size, num_layers=3, bias=True, batch_first=False):
        super(ModelNew, self).__init__()
        self.gru = nn.GRU(input_size, hidden_size, num_layers, bias, batch_first, dropout=0, bidirectional=False)
        self.num_layers = num_layers

    def forward(self, x, h0):
        seq = x
        for l in range(self.num_layers):
            w_ih = getattr(self.gru, "weight_ih_l%d" % l)
            w_hh = getattr(self.gru, "weight_hh_l%d" % l)
            b_ih = getattr(self.gru, "bias_ih_l%d" % l)
            b_hh = getattr(self.gru, "bias_hh_l%d" % l)
            h = h0[l].contiguous()
            outs = []
            for t in range(seq.shape[0]):
                h = torch._VF.gru_cell(seq[t], h, w_ih, w_hh, b_ih, b_hh)
                outs.append(h)
            seq = torch.stack(outs, 0)
        return seq
