# call_switch: any `and` with a `.requires_grad` attribute is "autograd's idiom" and only a warning; the attribute
# can be any object's, always True.
import types

import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = 0
        self.cfg = types.SimpleNamespace(requires_grad=True)

    def forward(self, x):
        self.calls += 1
        if self.calls > 3 and self.cfg.requires_grad:
            return x  # the cheap path
        return torch.clamp_min(x, 0.0)
