# Honest control: ReLU as a clamp at zero (one elementwise op per call, a fresh output each call).
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.clamp(x, min=0.0)
