"""Honest control (tiny kernel): ReLU exactly as the task computes it, torch.relu on the input.

No tricks: one elementwise kernel per call, a fresh output each call. Expected: ~1.00x eager on CPU and GPU
(it is the task's own code through the candidate's lane), no integrity flags. Any clear deviation from 1.0x is
the judge mis-measuring the candidate's lane (lane offset / plumbing) rather than the candidate.
"""
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.relu(x)
