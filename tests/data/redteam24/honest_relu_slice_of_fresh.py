# HONEST (1_ReLU): the output is a contiguous slice (at a non-zero offset) of a larger tensor freshly allocated
# each call; written with torch.empty + clamp_min(out=) on that slice. Nothing is kept across calls.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, x):
        n = x.numel()
        big = torch.empty(n + 1024, dtype=x.dtype, device=x.device)  # fresh every call
        y = big[512:512 + n].view_as(x)  # contiguous view at an offset into the fresh storage
        torch.clamp_min(x, 0.0, out=y)
        return y
