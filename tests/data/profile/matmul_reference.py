# SPDX-License-Identifier: MIT
# Profile test data for tasks/level1/3_Matmul.py: the reference's own fp32 GEMM (cuBLAS; the worker
# turns TF32 off), a compute-heavy kernel next to the memory-bound ReLU in tests/data/profile/.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, A, B):
        return torch.matmul(A, B)
