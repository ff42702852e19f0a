# Control (the plain PyTorch cheat the rule exists for) for cheat_token_ext_matmul.py: the same torch.matmul without the token extension call.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        return torch.matmul(A, B)
