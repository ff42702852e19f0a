# HONEST (1_ReLU): clone the input into a fresh tensor, ReLU it in place (relu_), return it as a 1-tuple.
# The module also keeps a reference to its last output (self.last, e.g. for debugging) and a registered buffer;
# it never writes to a returned tensor again.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()
        self.register_buffer("zero", torch.zeros(()))
        self.last = None
        self.calls = 0

    def forward(self, x):
        y = x.clone()          # fresh storage
        y.relu_()              # in-place on the fresh tensor
        y.add_(self.zero)      # buffer-derived no-op, computed each call
        self.last = y          # holding the output (never writing it again)
        self.calls += 1
        return (y,)            # a 1-tuple: flattened to one output
