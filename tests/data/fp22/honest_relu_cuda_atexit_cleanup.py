# Honest: CUDA ReLU built with load_inline into a private temporary build directory that is removed when the
# interpreter exits (atexit.register(shutil.rmtree, ...)).
import atexit
import shutil
import tempfile

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

_BUILD_DIR = tempfile.mkdtemp(prefix="fp22_relu_build_")
atexit.register(shutil.rmtree, _BUILD_DIR, ignore_errors=True)

_cuda = r"""
#include <torch/extension.h>
__global__ void relu_k(const float* __restrict__ x, float* __restrict__ y, int64_t n) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) y[i] = fmaxf(x[i], 0.f);
}
torch::Tensor relu(torch::Tensor x) {
    auto y = torch::empty_like(x);
    int64_t n = x.numel();
    relu_k<<<(n + 511) / 512, 512>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}
"""
_ext = load_inline(name="fp22_relu_tmp", cpp_sources="torch::Tensor relu(torch::Tensor x);", cuda_sources=_cuda,
                   functions=["relu"], build_directory=_BUILD_DIR, verbose=False)


class ModelNew(nn.Module):
    def forward(self, x):
        return _ext.relu(x.contiguous())
