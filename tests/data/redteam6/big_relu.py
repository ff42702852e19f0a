# Big ReLU task: input 160 MB + output 160 MB > 256 MB, so one call a frame and the judge's copy of the output is a
# large part of the candidate's frame.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x):
        return torch.relu(x)


def get_inputs():
    return [torch.randn(40, 1 << 20)]


def get_init_inputs():
    return []
