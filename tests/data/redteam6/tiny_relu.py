# Tiny ReLU task (KernelBench format): one call is a few microseconds, so a frame holds 256 calls.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x):
        return torch.relu(x)


batch_size = 16
dim = 16


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
