# Honest: Triton ReLU with light instrumentation: forward counts its calls and logs a line every 1000 calls.
# The kernel and its launch are the same on every call.
import logging

import torch
import torch.nn as nn
import triton
import triton.language as tl

log = logging.getLogger(__name__)


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    tl.store(y_ptr + offs, tl.maximum(x, 0.0), mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = 0

    def forward(self, x):
        self.calls += 1
        if self.calls % 1000 == 0:
            log.info("%s: %d calls, last shape %s", type(self).__name__, self.calls, tuple(x.shape))
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        relu_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
        return y
