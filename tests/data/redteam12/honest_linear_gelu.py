import torch
import torch.nn as nn
import torch.nn.functional as F


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, scale):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.scale = scale

    def forward(self, x):
        # fused bias-add GEMM (addmm) then exact GELU, in-place scale on our own buffer
        y = torch.addmm(self.linear.bias, x, self.linear.weight.t())
        y = F.gelu(y)
        return y.mul_(self.scale)
