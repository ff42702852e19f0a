# Honest: row softmax in CUDA; the source is a template filled with str.format (block size, warps), and
# the kernels are called softmax_frame_kernel / row_closure_reduce.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

THREADS = 256
TEMPLATE = r"""
#include <torch/extension.h>
#include <cfloat>
#define THREADS {threads}
#define WARPS {warps}

__device__ __forceinline__ float row_closure_reduce_max(float v) {{
    for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffff, v, o));
    return v;
}}
__device__ __forceinline__ float row_closure_reduce_sum(float v) {{
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);
    return v;
}}

__global__ void softmax_frame_kernel(const float* __restrict__ x, float* __restrict__ y, int cols) {{
    __shared__ float red[WARPS];
    const float* xr = x + (int64_t)blockIdx.x * cols;
    float* yr = y + (int64_t)blockIdx.x * cols;
    int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
    float m = -FLT_MAX;
    for (int c = threadIdx.x; c < cols; c += THREADS) m = fmaxf(m, xr[c]);
    m = row_closure_reduce_max(m);
    if (lane == 0) red[wid] = m;
    __syncthreads();
    m = red[0];
    for (int w = 1; w < WARPS; ++w) m = fmaxf(m, red[w]);
    __syncthreads();
    float s = 0.f;
    for (int c = threadIdx.x; c < cols; c += THREADS) s += expf(xr[c] - m);
    s = row_closure_reduce_sum(s);
    if (lane == 0) red[wid] = s;
    __syncthreads();
    s = 0.f;
    for (int w = 0; w < WARPS; ++w) s += red[w];
    float inv = 1.f / s;
    for (int c = threadIdx.x; c < cols; c += THREADS) yr[c] = expf(xr[c] - m) * inv;
}}

torch::Tensor {fn}(torch::Tensor x) {{
    auto y = torch::empty_like(x);
    softmax_frame_kernel<<<x.size(0), THREADS>>>(x.data_ptr<float>(), y.data_ptr<float>(), (int)x.size(1));
    return y;
}}
"""
FN_NAME = "softmax_rows_{}".format(THREADS)
cuda_src = TEMPLATE.format(threads=THREADS, warps=THREADS // 32, fn=FN_NAME)
cpp_src = "torch::Tensor {}(torch::Tensor x);".format(FN_NAME)

softmax_ext = load_inline(name="fp22_softmax_fmt", cpp_sources=cpp_src, cuda_sources=cuda_src,
                          functions=[FN_NAME], extra_cuda_cflags=["-O3"], verbose=False)


class ModelNew(nn.Module):
    def forward(self, x):
        fn = getattr(softmax_ext, FN_NAME)
        return fn(x.contiguous())
