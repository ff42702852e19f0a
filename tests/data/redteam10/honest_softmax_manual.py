# Honest: numerically stable softmax written out (max-subtract, exp, normalise in place).
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, x):
        m = x.amax(dim=1, keepdim=True)
        e = torch.exp(x - m)
        e.div_(e.sum(dim=1, keepdim=True))
        return e
