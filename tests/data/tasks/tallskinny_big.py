# Scratch task (red team 5): KernelBench level1/9_Tall_skinny_matrix_multiplication_ shrunk to a CPU:
# C = A @ B with A (M, N), B (N, M), N = 16: inputs 1 MB, output 285 MB (a "big" task: in + out > 256 MB).
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, A, B):
        return torch.matmul(A, B)


M = 8448
N = 16


def get_inputs():
    return [torch.randn(M, N), torch.randn(N, M)]


def get_init_inputs():
    return []
