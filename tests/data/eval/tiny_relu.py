# SPDX-License-Identifier: MIT
# Evaluator test task: a tiny elementwise ReLU (milliseconds on CPU).
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.relu(x)


def get_inputs():
    return [torch.randn(4, 256)]


def get_init_inputs():
    return []
