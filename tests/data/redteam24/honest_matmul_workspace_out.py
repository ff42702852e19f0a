# HONEST (3_Matmul): caches a WORKSPACE (not an output): B is copied into a kept buffer each call (transposed
# then transposed back, i.e. a contiguous copy of B), and the product is written with torch.empty + matmul(out=)
# into a tensor freshly allocated every call. The workspace is never returned.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()
        self.ws = None

    def forward(self, A, B):
        if self.ws is None or self.ws.shape != B.shape or self.ws.dtype != B.dtype:
            self.ws = torch.empty_like(B)
        self.ws.copy_(B)                                    # workspace reused across calls
        C = torch.empty(A.shape[0], B.shape[1], dtype=A.dtype, device=A.device)  # fresh output
        torch.matmul(A, self.ws, out=C)
        return C
