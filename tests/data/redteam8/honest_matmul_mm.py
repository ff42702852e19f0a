"""Honest candidate for level1/3_Matmul: C = A @ B with torch.mm (the same GEMM as torch.matmul, one dispatch
layer less). Full fp32 computation, no TF32 (flags untouched), no caching.
Expected: ~1.00x eager on CPU and GPU, no integrity flags. Serves as the fair control for cheat_widen_cpus_matmul.py.
"""
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        return torch.mm(A, B)
