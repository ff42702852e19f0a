# Honest (meant to be faster): one addmm with bias folded in, GELU, then the scale applied in place on the
# GELU's own output (one fewer temporary than the task's `F.gelu(linear(x)) * scale`).
import torch
import torch.nn as nn
import torch.nn.functional as F


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, scale):
        super(ModelNew, self).__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.scale = scale

    def forward(self, x):
        y = torch.addmm(self.linear.bias, x, self.linear.weight.t())
        y = F.gelu(y)
        return y.mul_(self.scale)
