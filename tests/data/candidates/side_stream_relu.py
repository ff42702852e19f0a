# SPDX-License-Identifier: MIT
# Test candidate (cheat, GPU): does its work on a side stream the timer does not wait for, after a
# spin, and returns before it is done. Correct once everything is synchronized; fast on the clock.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.side = None

    def forward(self, x):
        if self.side is None:
            self.side = torch.cuda.Stream()
        out = torch.empty_like(x)
        self.side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.side):
            torch.cuda._sleep(2000000)  # ~1 ms of spinning before the real work
            out.copy_(torch.relu(x))
        return out
