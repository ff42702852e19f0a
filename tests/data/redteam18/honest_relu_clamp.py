# Red team 18 honest control (1_ReLU): ReLU as clamp_min, one fresh output per call. Expected ~1.0x eager.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.clamp_min(x, 0.0)
