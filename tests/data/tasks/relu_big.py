# SPDX-License-Identifier: MIT
# A "big" ReLU for CPU tests: 144 MiB of input and as much output, over the judge's 256 MiB bound
# (kwb_worker/judge.py BIG), so it is evaluated as the big KernelBench tasks are on a GPU: one input set
# alive at a time, one call a frame, the reference's outputs over its inputs, the lanes compared by
# their bare frames.
import torch
import torch.nn as nn


class Model(nn.Module):
    """Applies ReLU elementwise."""

    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x):
        return torch.relu(x)


batch_size = 9
dim = 4 << 20


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
