# Honest: ReLU with a CuPy RawKernel. The tensors are shared zero-copy with CuPy, which READS their
# __cuda_array_interface__; the launch goes on torch's current stream.
import cupy as cp
import torch
import torch.nn as nn

_relu = cp.RawKernel(r"""
extern "C" __global__
void relu_frame(const float* x, float* y, long long n) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] > 0.f ? x[i] : 0.f;
}
""", "relu_frame")


def _as_cupy(t):
    cai = t.__cuda_array_interface__  # read only: shape/typestr/data of torch's own allocation
    assert cai["typestr"] == "<f4", cai["typestr"]
    return cp.asarray(t)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        threads = 256
        stream = cp.cuda.ExternalStream(torch.cuda.current_stream().cuda_stream)
        with stream:
            _relu(((n + threads - 1) // threads,), (threads,), (_as_cupy(x), _as_cupy(y), cp.int64(n)))
        return y
