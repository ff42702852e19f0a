# SPDX-License-Identifier: MIT
# Test candidate: imports a module that does not exist.
import torch
import kwb_no_such_module_anywhere  # noqa: F401
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        return torch.relu(x)
