# SPDX-License-Identifier: MIT
# Test candidate: asks for far more memory than any machine has (4 PiB).
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        buf = torch.empty(1 << 50, dtype=torch.float32, device=x.device)
        return torch.relu(x) + buf[0] * 0
