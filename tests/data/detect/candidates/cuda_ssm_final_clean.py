# SPDX-License-Identifier: MIT
# Corpus (clean): the Mamba-style selective scan in CUDA for a task that returns only the final
# state: one thread per (batch, channel, state) element carries its state across the sequence in a
# register and writes it once, after the loop.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

CUDA_SRC = r"""
#include <torch/extension.h>

__global__ void scan_final(const float* __restrict__ x, const float* __restrict__ dt,
                           const float* __restrict__ bm, const float* __restrict__ a,
                           float* __restrict__ out, int batch, int len, int dm, int ds) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= batch * dm * ds) return;
    int s = idx % ds;
    int c = (idx / ds) % dm;
    int b = idx / (ds * dm);
    float av = a[c * ds + s];
    float acc = 0.0f;
    for (int j = 0; j < len; j++) {
        float d = dt[(b * len + j) * dm + c];
        acc = __expf(d * av) * acc + d * x[(b * len + j) * dm + c] * bm[(b * len + j) * ds + s];
    }
    out[idx] = acc;
}

torch::Tensor scan(torch::Tensor x, torch::Tensor dt, torch::Tensor bm, torch::Tensor a) {
    int batch = x.size(0), len = x.size(1), dm = x.size(2), ds = a.size(1);
    auto out = torch::empty({batch, dm, ds}, x.options());
    int n = batch * dm * ds;
    scan_final<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), dt.data_ptr<float>(), bm.data_ptr<float>(),
                                         a.data_ptr<float>(), out.data_ptr<float>(), batch, len, dm, ds);
    return out;
}
"""
CPP_SRC = "torch::Tensor scan(torch::Tensor x, torch::Tensor dt, torch::Tensor bm, torch::Tensor a);"

_ext = load_inline(name="ssm_scan_final", cpp_sources=CPP_SRC, cuda_sources=CUDA_SRC, functions=["scan"])


class ModelNew(nn.Module):
    def __init__(self, d_model, d_state):
        super().__init__()
        a = torch.arange(1, d_state + 1, dtype=torch.float32).repeat(d_model, 1)
        self.A_log = nn.Parameter(torch.log(a))

    def forward(self, x, delta, B):
        A = (-torch.exp(self.A_log)).contiguous()
        return _ext.scan(x.contiguous(), delta.contiguous(), B.contiguous(), A)
