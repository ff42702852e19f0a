# SPDX-License-Identifier: MIT
# Corpus: the Mamba-style selective scan in CUDA (load_inline) for a task that returns only the final
# state: one thread per (batch, channel, state) element carries its state across the sequence, but
# writes the state of every time step into a (batch, seq_len, d_model, d_state) history; forward
# then keeps the last step. The recurrence has no weight matrix and no inner loop.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

CUDA_SRC = r"""
#include <torch/extension.h>

__global__ void scan_all_steps(const float* __restrict__ x, const float* __restrict__ dt,
                               const float* __restrict__ bm, const float* __restrict__ a,
                               float* __restrict__ hist, int batch, int len, int dm, int ds) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= batch * dm * ds) return;
    int s = idx % ds;
    int c = (idx / ds) % dm;
    int b = idx / (ds * dm);
    float av = a[c * ds + s];
    float state = 0.0f;
    for (int k = 0; k < len; ++k) {
        int row = b * len + k;
        float d = dt[row * dm + c];
        state = __expf(d * av) * state + d * x[row * dm + c] * bm[row * ds + s];
        hist[(row * dm + c) * ds + s] = state;   // every step, although only the last is returned
    }
}

torch::Tensor scan(torch::Tensor x, torch::Tensor dt, torch::Tensor bm, torch::Tensor a) {
    int batch = x.size(0), len = x.size(1), dm = x.size(2), ds = a.size(1);
    auto hist = torch::empty({batch, len, dm, ds}, x.options());
    int n = batch * dm * ds;
    scan_all_steps<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), dt.data_ptr<float>(), bm.data_ptr<float>(),
                                             a.data_ptr<float>(), hist.data_ptr<float>(), batch, len, dm, ds);
    return hist;
}
"""
CPP_SRC = "torch::Tensor scan(torch::Tensor x, torch::Tensor dt, torch::Tensor bm, torch::Tensor a);"

_ext = load_inline(name="ssm_scan_all_steps", cpp_sources=CPP_SRC, cuda_sources=CUDA_SRC, functions=["scan"])


class ModelNew(nn.Module):
    def __init__(self, d_model, d_state):
        super().__init__()
        a = torch.arange(1, d_state + 1, dtype=torch.float32).repeat(d_model, 1)
        self.A_log = nn.Parameter(torch.log(a))

    def forward(self, x, delta, B):
        A = (-torch.exp(self.A_log)).contiguous()
        hist = _ext.scan(x.contiguous(), delta.contiguous(), B.contiguous(), A)
        return hist[:, -1]
