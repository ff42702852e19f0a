# Honest: ReLU written as clamp(min=0) -- equivalent formulation.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, x):
        return torch.clamp(x, min=0.0)
