# Honest candidate for tasks/level1/1_ReLU.py: ReLU as one clamp kernel, a fresh output every call.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, x):
        # clamp_min(x, 0) is exactly relu (same values, NaN propagated), written into a new tensor.
        return torch.clamp_min(x, 0.0)
