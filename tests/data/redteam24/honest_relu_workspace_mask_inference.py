# HONEST (1_ReLU): a mask WORKSPACE kept across calls (never returned), the output freshly allocated (empty_like)
# and written with mul(out=); forward runs under @torch.inference_mode(); a jit.trace'd submodule does the multiply.
import torch
import torch.nn as nn


class _Mul(nn.Module):
    def forward(self, a, b):
        return a * b


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()
        ex = torch.randn(2, 3)
        self.mul = torch.jit.trace(_Mul(), (ex, ex))
        self.mask = None

    @torch.inference_mode()
    def forward(self, x):
        if self.mask is None or self.mask.shape != x.shape or self.mask.device != x.device:
            self.mask = torch.empty_like(x)
        torch.gt(x, 0, out=self.mask)          # workspace, dtype float (0/1)
        y = self.mul(x, self.mask)             # fresh output
        return y
