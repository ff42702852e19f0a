# SPDX-License-Identifier: MIT
# Level 2 style task: a small fused op, Linear -> GELU -> multiply by a constant.
import torch
import torch.nn as nn
import torch.nn.functional as F


class ModelNew(nn.Module):
    """y = GELU(x @ W^T + b) * scale."""

    def __init__(self, in_features, out_features, scale):
        super(ModelNew, self).__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.scale = scale

    def forward(self, x):
        return F.gelu(self.linear(x)) * self.scale


batch_size = 32
in_features = 256
out_features = 512
scale = 0.5


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features, scale]
