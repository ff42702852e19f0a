# Honest: ReLU as one vectorised elementwise pass, max(x, 0) through ATen's clamp (memory-bound,
# one read and one write per element, same as the reference).
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x.clamp_min(0.0)
