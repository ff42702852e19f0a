# Honest control: row softmax through torch.special.softmax (one op per call, a fresh output each call).
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.special.softmax(x, 1)
