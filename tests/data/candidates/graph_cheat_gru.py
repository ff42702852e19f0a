# SPDX-License-Identifier: MIT
# Test candidate for the GRU tasks (39..42): no kernel at all, cuDNN's nn.GRU wrapped in a CUDA
# graph (what a published system called a 3.6-5.5x "speedup"). Correct; fast against eager, ~1.0x
# against the evaluator's CUDA-graph baseline. Parameters in nn.GRU's order, so seeding matches.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, input_size, hidden_size, num_layers=3, bias=True, batch_first=False):
        super().__init__()
        self.gru = nn.GRU(input_size, hidden_size, num_layers, bias, batch_first, dropout=0,
                          bidirectional=False)
        self.graph = None

    def forward(self, x, h0):
        if self.graph is None or self.static_x.shape != x.shape:
            self.static_x, self.static_h = x.clone(), h0.clone()
            s = torch.cuda.Stream()
            s.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(s):
                for _ in range(2):
                    self.gru(self.static_x, self.static_h)
            torch.cuda.current_stream().wait_stream(s)
            self.graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(self.graph):
                self.static_out = self.gru(self.static_x, self.static_h)[0]
        self.static_x.copy_(x)
        self.static_h.copy_(h0)
        self.graph.replay()
        return self.static_out.clone()
