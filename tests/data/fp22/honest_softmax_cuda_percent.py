# Honest: row softmax in CUDA, one warp per row; the source is filled in with %-formatting and
# string.Template, and the kernel is named warp_frame_softmax.
import string

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

ROWS_PER_BLOCK = 4
KERNEL = r"""
#include <torch/extension.h>
#include <cfloat>
#define ROWS_PER_BLOCK %d

__global__ void warp_frame_softmax(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
    int row = blockIdx.x * ROWS_PER_BLOCK + threadIdx.y;
    if (row >= rows) return;
    const float* xr = x + (int64_t)row * cols;
    float* yr = y + (int64_t)row * cols;
    float m = -FLT_MAX;
    for (int c = threadIdx.x; c < cols; c += 32) m = fmaxf(m, xr[c]);
    for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffff, m, o));
    float s = 0.f;
    for (int c = threadIdx.x; c < cols; c += 32) s += expf(xr[c] - m);
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffff, s, o);
    float inv = 1.f / s;
    for (int c = threadIdx.x; c < cols; c += 32) yr[c] = expf(xr[c] - m) * inv;
}
""" % ROWS_PER_BLOCK

HOST = string.Template(r"""
torch::Tensor ${name}(torch::Tensor x) {
    auto y = torch::empty_like(x);
    int rows = x.size(0), cols = x.size(1);
    dim3 block(32, ROWS_PER_BLOCK);
    warp_frame_softmax<<<(rows + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK, block>>>(
        x.data_ptr<float>(), y.data_ptr<float>(), rows, cols);
    return y;
}
""").substitute(name="softmax_warp")

_mod = load_inline(name="fp22_softmax_pct", cpp_sources="torch::Tensor %s(torch::Tensor x);" % "softmax_warp",
                   cuda_sources=KERNEL + HOST, functions=["softmax_warp"], verbose=False)


class ModelNew(nn.Module):
    def forward(self, x):
        return _mod.softmax_warp(x.contiguous())
