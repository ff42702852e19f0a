# SPDX-License-Identifier: MIT
# Test candidate for tasks/view_flatten.py: honest, the task's own code (a view of the input, which the judge copies
# out of the candidate's arena: handoff.py's places inside the arena).
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x.view(x.shape[0], -1)
