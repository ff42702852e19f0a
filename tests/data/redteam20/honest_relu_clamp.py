import torch
import torch.nn as nn


class ModelNew(nn.Module):
    """ReLU as a clamp at zero (the same elementwise kernel class, one op)."""

    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.clamp_min(x, 0.0)
