# Honest, differently written: a numerically stable softmax from its definition
# (row max, exp of the shifted row, divide by the row sum) instead of torch.softmax. Same work, fp32.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, x):
        m = x.amax(dim=1, keepdim=True)
        e = (x - m).exp()
        return e / e.sum(dim=1, keepdim=True)
