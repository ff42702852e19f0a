# SPDX-License-Identifier: MIT
# Small ReLU for CPU tests (1 KiB tensors: the CPU allocator recycles freed blocks of this size).
import torch
import torch.nn as nn


class Model(nn.Module):
    """Applies ReLU elementwise."""

    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x):
        return torch.relu(x)


batch_size = 4
dim = 64


def get_inputs():
    # randn, not rand: half the values are negative, so ReLU does something.
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
