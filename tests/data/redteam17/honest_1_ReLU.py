# SPDX-License-Identifier: MIT
# Level 1 style task: elementwise ReLU (small; evaluates in well under a second on CPU).
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    """Applies ReLU elementwise."""

    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, x):
        return torch.relu(x)


batch_size = 16
dim = 4096


def get_inputs():
    # randn, not rand: half the values are negative, so ReLU does something.
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
