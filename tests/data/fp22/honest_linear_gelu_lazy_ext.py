# Honest: Linear -> GELU -> scale. cuBLAS (torch.addmm) for the GEMM, and a custom CUDA epilogue kernel
# (exact erf GELU and the scale, in place) from an extension compiled lazily by a getter.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

_CUDA = r"""
#include <torch/extension.h>
__global__ void gelu_scale_kernel(float* __restrict__ y, float scale, int64_t n) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) {
        float v = y[i];
        y[i] = 0.5f * v * (1.0f + erff(v * 0.70710678118654752f)) * scale;
    }
}
void gelu_scale_(torch::Tensor y, double scale) {
    int64_t n = y.numel();
    gelu_scale_kernel<<<(n + 255) / 256, 256>>>(y.data_ptr<float>(), (float)scale, n);
}
"""
_CPP = "void gelu_scale_(torch::Tensor y, double scale);"
_EXT = None


def _get_ext():
    global _EXT
    if _EXT is None:
        _EXT = load_inline(name="fp22_gelu_scale", cpp_sources=_CPP, cuda_sources=_CUDA,
                           functions=["gelu_scale_"], verbose=False)
    return _EXT


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, scale):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.scale = float(scale)

    def forward(self, x):
        y = torch.addmm(self.linear.bias, x, self.linear.weight.t())
        _get_ext().gelu_scale_(y, self.scale)
        return y
