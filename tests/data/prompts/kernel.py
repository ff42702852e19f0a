import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def gate_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.sigmoid(x), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x, h0):
        out = {"h": h0}  # braces in code must survive rendering: {{not_a_placeholder}}
        return out["h"]
