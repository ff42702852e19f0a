# Honest: Linear -> GELU -> scale. The weight is held as row blocks w0, w1 (registered with setattr and read
# back with getattr(self, f"w{i}")); cuBLAS does the GEMM on the concatenated weight and a Triton kernel the
# bias + exact GELU + scale epilogue.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _bias_gelu_scale_kernel(y_ptr, b_ptr, out_ptr, n_cols, n_elements, scale, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    y = tl.load(y_ptr + offs, mask=mask, other=0.0)
    b = tl.load(b_ptr + offs % n_cols, mask=mask, other=0.0)
    v = y + b
    g = 0.5 * v * (1.0 + tl.erf(v * 0.7071067811865476))
    tl.store(out_ptr + offs, g * scale, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, scale, n_chunks=2):
        super().__init__()
        lin = nn.Linear(in_features, out_features)  # the reference's initialisation, same RNG draws
        self.n_chunks = n_chunks
        for i, chunk in enumerate(lin.weight.detach().chunk(n_chunks, dim=0)):
            setattr(self, f"w{i}", nn.Parameter(chunk.clone()))
        self.register_parameter("bias", nn.Parameter(lin.bias.detach().clone()))
        self.register_buffer("scale_t", torch.tensor(float(scale)), persistent=False)
        self.scale = float(scale)

    def weights(self):
        return [getattr(self, f"w{i}") for i in range(self.n_chunks)]

    def forward(self, x):
        w = torch.cat(self.weights(), dim=0)
        y = torch.matmul(x, w.t())
        out = torch.empty_like(y)
        n = y.numel()
        BLOCK = 1024
        _bias_gelu_scale_kernel[(triton.cdiv(n, BLOCK),)](y, self.bias, out, y.shape[1], n, self.scale, BLOCK=BLOCK)
        return out
