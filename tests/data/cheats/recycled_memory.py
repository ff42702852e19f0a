# SPDX-License-Identifier: MIT
# Cheat class: returning recycled memory. Task: level1/1_ReLU.py
# Allocates the output without writing it, hoping the allocator hands back the reference output's
# freed memory with the right answer still in it.
# What stops it: the reference is computed in the judge and the reference's runner, other processes;
# the candidate's allocator has nothing of it: wrong_result.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        return torch.empty_like(x)
