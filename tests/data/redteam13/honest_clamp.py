"""HONEST: ReLU as x.clamp(min=0)."""
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, x):
        return x.clamp(min=0)
