# Honest: softmax written as exp(x - logsumexp(x)) over dim 1 -- an equivalent formulation.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, x):
        return torch.exp(x - torch.logsumexp(x, dim=1, keepdim=True))
