# Honest: ReLU with a Numba CUDA kernel. A small view class hands numba the tensor's OWN
# __cuda_array_interface__ (a pure pass-through, so numba sees exactly torch's allocation and stream).
import math

import torch
import torch.nn as nn
from numba import cuda


@cuda.jit
def relu_numba_kernel(x, y):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        y[i] = v if v > 0.0 else 0.0


class _TorchView:
    """Exposes a CUDA tensor to numba without a copy."""

    def __init__(self, t):
        self._t = t

    @property
    def __cuda_array_interface__(self):
        return self._t.__cuda_array_interface__


class ModelNew(nn.Module):
    def forward(self, x):
        flat = x.contiguous().view(-1)
        y = torch.empty_like(flat)
        threads = 256
        blocks = math.ceil(flat.numel() / threads)
        stream = cuda.external_stream(torch.cuda.current_stream().cuda_stream)
        relu_numba_kernel[blocks, threads, stream](cuda.as_cuda_array(_TorchView(flat)), cuda.as_cuda_array(_TorchView(y)))
        return y.view_as(x)
