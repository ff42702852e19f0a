# HONEST: softmax written with out= into a tensor allocated fresh in this call (the out= form that
# a pooled cheat uses, but on new memory every call).
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        out = torch.empty_like(x)
        torch.softmax(x, 1, out=out)
        return out
