# Honest control for big_thp_relu.py: the output goes into one preallocated, pre-faulted buffer (4 KB pages, as
# torch allocates them), same work.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.out = None

    def forward(self, x):
        if self.out is None or self.out.shape != x.shape:
            self.out = torch.zeros_like(x)
        return torch.clamp_min(x, 0, out=self.out)
