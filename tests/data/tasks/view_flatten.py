# SPDX-License-Identifier: MIT
# A task whose output is a view of its input (KernelBench has reshapes, squeezes and flattens like it). From blind
# red team 6: the judge once overwrote one input slot of every timed batch before the outputs were delivered, and the
# reference's own output, a view of that input, came out overwritten: every candidate was wrong_result.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x):
        return x.view(x.shape[0], -1)


def get_inputs():
    return [torch.randn(16, 32, 64)]


def get_init_inputs():
    return []
