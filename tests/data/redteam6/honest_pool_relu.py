# Honest control for lean_runner_relu.py: same work (relu into a pool of preallocated output buffers, one per call
# of a batch), no patching of the harness.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.pool = None
        self.i = 0

    def forward(self, x):
        if self.pool is None or self.pool[0].shape != x.shape:
            self.pool = [torch.empty_like(x) for _ in range(512)]
        o = self.pool[self.i % 512]
        self.i += 1
        return torch.clamp_min(x, 0, out=o)
