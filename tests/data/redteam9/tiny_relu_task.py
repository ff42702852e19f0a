# A tiny real task (not a view): ReLU of a 16x16 tensor. Its calls are a few microseconds,
# far under the runner's per-call plumbing: judge.measurable() says "within the plumbing's noise".
import torch
import torch.nn as nn

class Model(nn.Module):
    def __init__(self):
        super(Model, self).__init__()
    def forward(self, x):
        return torch.relu(x)

def get_inputs():
    return [torch.randn(16, 16)]

def get_init_inputs():
    return []
