# Honest: CUDA ReLU through load_inline, compiled lazily on first use; a lock keeps two threads of the
# host application from compiling the extension twice. The kernel runs synchronously in forward.
import threading

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

CUDA_SRC = r"""
#include <torch/extension.h>
__global__ void relu_vec4_kernel(const float4* __restrict__ x, float4* __restrict__ y, int64_t n4) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n4) {
        float4 v = x[i];
        v.x = fmaxf(v.x, 0.f); v.y = fmaxf(v.y, 0.f); v.z = fmaxf(v.z, 0.f); v.w = fmaxf(v.w, 0.f);
        y[i] = v;
    }
}
__global__ void relu_tail_kernel(const float* __restrict__ x, float* __restrict__ y, int64_t start, int64_t n) {
    int64_t i = start + blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) y[i] = fmaxf(x[i], 0.f);
}
torch::Tensor relu_forward(torch::Tensor x) {
    auto y = torch::empty_like(x);
    int64_t n = x.numel();
    int64_t n4 = n / 4;
    if (n4 > 0)
        relu_vec4_kernel<<<(n4 + 255) / 256, 256>>>((const float4*)x.data_ptr<float>(), (float4*)y.data_ptr<float>(), n4);
    if (n - n4 * 4 > 0)
        relu_tail_kernel<<<1, 32>>>(x.data_ptr<float>(), y.data_ptr<float>(), n4 * 4, n);
    return y;
}
"""
CPP_SRC = "torch::Tensor relu_forward(torch::Tensor x);"

_build_lock = threading.Lock()
_ext = None


def _load():
    global _ext
    with _build_lock:
        if _ext is None:
            _ext = load_inline(name="fp22_relu_vec4", cpp_sources=CPP_SRC, cuda_sources=CUDA_SRC,
                               functions=["relu_forward"], verbose=False)
    return _ext


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.ext = _load()

    def forward(self, x):
        return self.ext.relu_forward(x.contiguous())
