# HONEST (3_Matmul): the product written with mm(out=) into the left block of a fresh, wider (N, N+8) tensor and
# that block returned: a non-contiguous (row stride N+8) view of fresh memory.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, A, B):
        n, m = A.shape[0], B.shape[1]
        wide = torch.empty(n, m + 8, dtype=A.dtype, device=A.device)
        C = wide[:, :m]
        torch.mm(A, B, out=C)
        return C
