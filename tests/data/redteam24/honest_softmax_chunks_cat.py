# HONEST (2_Softmax): softmax of row chunks (torch.chunk -> softmax each) concatenated with torch.cat into a fresh
# output; a global module forward hook is NOT used, only a per-instance pre-hook that returns the args unchanged.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()
        self.register_forward_pre_hook(lambda m, args: args)

    def forward(self, x):
        return torch.cat([torch.softmax(c, dim=1) for c in torch.chunk(x, 4, dim=0)], dim=0)
