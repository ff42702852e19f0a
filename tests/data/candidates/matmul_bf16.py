# SPDX-License-Identifier: MIT
# Test candidate for 3_Matmul (precision downgrade): matmul in bfloat16, cast back to fp32.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, A, B):
        return (A.bfloat16() @ B.bfloat16()).float()
