# Honest control: the task's own Matmul (3_Matmul.py) renamed ModelNew. Expected ~1.0x, clean.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, A, B):
        return torch.matmul(A, B)
