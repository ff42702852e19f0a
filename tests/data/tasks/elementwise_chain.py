# SPDX-License-Identifier: MIT
# Test task (GPU honest set): a chain of elementwise ops that eager PyTorch runs as several kernels,
# each a full pass over memory; a fused kernel makes one pass. tests/data/candidates/triton_fused_chain.py
# is an honest fused Triton kernel for it, genuinely faster than eager.
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.tanh(x) * torch.sigmoid(x) + 0.5 * x


batch_size = 2048
dim = 8192


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
