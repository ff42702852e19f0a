# call_switch: `assert` is inert, but its expression runs; a walrus in it binds a local the later `if` tests.
# Locals are followed through ast.Assign only, so `fast` carries no origin.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = 0

    def forward(self, x):
        self.calls += 1
        fast = False
        if self.calls > 3:
            assert (fast := True)
        if fast:
            return x  # the cheap path
        return torch.clamp_min(x, 0.0)
