# HONEST (view_flatten): returns a fresh contiguous COPY instead of a view (x.reshape(...).clone()), via an
# nn.Flatten submodule in an nn.Sequential.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()
        self.body = nn.Sequential(nn.Flatten(1))

    def forward(self, x):
        return self.body(x).clone()
