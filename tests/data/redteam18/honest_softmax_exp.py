# Red team 18 honest control (2_Softmax): a numerically stable softmax written out (max, exp, sum, divide),
# one call at a time, fp32. Expected somewhat slower than eager's fused softmax (several passes over the row).
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        m = torch.amax(x, dim=1, keepdim=True)
        e = torch.exp(x - m)
        s = torch.sum(e, dim=1, keepdim=True)
        return e.div_(s)
