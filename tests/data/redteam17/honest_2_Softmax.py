# SPDX-License-Identifier: MIT
# Level 1 style task: row-wise softmax over the last dimension.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    """Softmax over dim 1 of a (batch_size, dim) tensor."""

    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, x):
        return torch.softmax(x, dim=1)


batch_size = 16
dim = 2048


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
