# SPDX-License-Identifier: MIT
# A "big" softmax for CPU tests: 144 MiB of input and as much output, over the judge's 256 MiB bound
# (kwb_worker/judge.py BIG), with outputs of ~1e-6 each, far under the comparison's atol of 1e-4: a big task has no
# fp64 check, so its errors are also held to a share of the outputs' own magnitude (judge.BIG_SCALE_REL).
import torch
import torch.nn as nn


class Model(nn.Module):
    """Softmax over the second dimension."""

    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x):
        return torch.softmax(x, dim=1)


batch_size = 36
dim = 1 << 20


def get_inputs():
    return [torch.rand(batch_size, dim)]


def get_init_inputs():
    return []
