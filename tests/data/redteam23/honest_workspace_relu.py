# HONEST: keeps a preallocated workspace (a bool mask buffer, reused on every call and never
# returned) but every call returns a freshly allocated output tensor. A too-strict "kept buffer"
# check that flagged any reused memory in the model would wrongly catch this.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.ws = None

    def forward(self, x):
        if self.ws is None or self.ws.shape != x.shape:
            self.ws = torch.empty(x.shape, dtype=torch.bool)
        torch.gt(x, 0, out=self.ws)              # workspace: written every call, never returned
        out = torch.empty_like(x)                # fresh output every call
        return torch.mul(x, self.ws, out=out)
