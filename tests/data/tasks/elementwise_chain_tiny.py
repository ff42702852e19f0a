# SPDX-License-Identifier: MIT
# tests/data/tasks/elementwise_chain.py at a size where every eager kernel is a few microseconds: eager
# launches five of them, a fused kernel one (tests/data/candidates/triton_fused_chain.py), so an honest
# kernel is genuinely faster than eager at ~5 us a call (the judge's GPU check, tests/gpu/clock_check.py).
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.tanh(x) * torch.sigmoid(x) + 0.5 * x


batch_size = 16
dim = 4096


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
