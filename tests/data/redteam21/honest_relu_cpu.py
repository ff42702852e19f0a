# Honest control: ReLU computed every call (clamp_min is no "PyTorch compute" op for the detectors).
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.clamp_min(x, 0.0)
