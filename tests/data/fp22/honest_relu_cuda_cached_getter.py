# Honest: CUDA ReLU; the compiled extension (not any output) is memoised by a getter with an early return.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

_SRC = r"""
#include <torch/extension.h>
__global__ void relu_grid_stride(const float* __restrict__ x, float* __restrict__ y, int64_t n) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        y[i] = x[i] > 0.f ? x[i] : 0.f;
}
torch::Tensor relu_gs(torch::Tensor x) {
    auto y = torch::empty_like(x);
    int64_t n = x.numel();
    int blocks = (int)std::min<int64_t>((n + 255) / 256, 4096);
    relu_grid_stride<<<blocks, 256>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}
"""
_MODULE = None


def _module():
    global _MODULE
    if _MODULE is not None:
        return _MODULE
    _MODULE = load_inline(name="fp22_relu_gs", cpp_sources="torch::Tensor relu_gs(torch::Tensor x);",
                          cuda_sources=_SRC, functions=["relu_gs"], verbose=False)
    return _MODULE


class ModelNew(nn.Module):
    def forward(self, x):
        ext = _module()
        return ext.relu_gs(x.contiguous())
