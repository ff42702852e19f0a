# SPDX-License-Identifier: MIT
# Corpus: the CUDA persistent GRU layer of cuda_persistent.py, with its source assembled by string
# formatting inside a function (`src = HEADER % ... + KERNEL`) and __launch_bounds__ after `void`,
# as the showcase candidates do: the detectors must still read the kernel.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

KERNEL = r"""
// for (int t = 0; t < 1; ++t) { x = x * 2; }   a comment, not a loop
__global__ void __launch_bounds__(NT, 1)
gru_layer(const float* gx, const float* w_hh, const float* h0, float* out, int seq_len, int hidden) {
    extern __shared__ float h_sh[];
    int j = threadIdx.x;
    float h = h0[blockIdx.x * hidden + j];
    for (int step = 0; step < seq_len; ++step) {
        h_sh[j] = h;
        __syncthreads();
        float acc = 0.0f;
        for (int k = 0; k < hidden; ++k) {
            acc += w_hh[j * hidden + k] * h_sh[k];
        }
        float z = 1.0f / (1.0f + expf(-(gx[step * hidden + j] + acc)));
        h = z * h + (1.0f - z) * tanhf(acc);
        out[step * hidden + j] = h;
        __syncthreads();
    }
}

torch::Tensor gru_layer_forward(torch::Tensor gx, torch::Tensor w_hh, torch::Tensor h0) {
    auto out = torch::empty({gx.size(0), h0.size(0), h0.size(1)}, gx.options());
    gru_layer<<<h0.size(0), h0.size(1), h0.size(1) * sizeof(float)>>>(
        gx.data_ptr<float>(), w_hh.data_ptr<float>(), h0.data_ptr<float>(), out.data_ptr<float>(),
        gx.size(0), h0.size(1));
    return out;
}
"""
cpp_src = "torch::Tensor gru_layer_forward(torch::Tensor gx, torch::Tensor w_hh, torch::Tensor h0);"



def _build(threads):
    src = "#include <torch/extension.h>\n#define NT %d\n" % threads + KERNEL
    return load_inline(name="gru_ext_%d" % threads, cpp_sources=cpp_src, cuda_sources=src,
                       functions=["gru_layer_forward"], verbose=False)


gru_ext = _build(256)


class ModelNew(nn.Module):
    def __init__(self, input_size, hidden_size, num_layers=3, bias=True, batch_first=False):
        super().__init__()
        self.num_layers = num_layers
        self.w_ih = nn.ParameterList([nn.Parameter(torch.randn(hidden_size, input_size if i == 0 else hidden_size))
                                      for i in range(num_layers)])
        self.w_hh = nn.ParameterList([nn.Parameter(torch.randn(hidden_size, hidden_size))
                                      for i in range(num_layers)])

    def forward(self, x, h0):
        inp = x
        for layer in range(self.num_layers):
            gx = torch.matmul(inp, self.w_ih[layer].t()).contiguous()
            inp = gru_ext.gru_layer_forward(gx, self.w_hh[layer], h0[layer].contiguous())
        return inp
