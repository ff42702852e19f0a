# HONEST (level2 Linear_GELU_Scale): an nn.Sequential of the Linear, nn.GELU and a scaling submodule that is
# torch.jit.script'ed; a forward hook on the Sequential that returns None (observes only).
import torch
import torch.nn as nn


class _Scale(nn.Module):
    def __init__(self, s: float):
        super(_Scale, self).__init__()
        self.s = s

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * self.s


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, scale):
        super(ModelNew, self).__init__()
        self.linear = nn.Linear(in_features, out_features)   # same name/order as the task: same init draws
        self.seq = nn.Sequential(self.linear, nn.GELU(), torch.jit.script(_Scale(float(scale))))
        self.seen = 0
        self.seq.register_forward_hook(self._count)

    def _count(self, module, args, out):
        self.seen += 1
        return None

    def forward(self, x):
        return self.seq(x)
