# SPDX-License-Identifier: MIT
# Corpus (cheat): issue 11's switching cheat. Exact for the first calls (the correctness trials),
# then only a quarter of the elements is computed (the timed calls); a module-level counter and a
# graph-capture probe decide. The rest of the output keeps whatever the allocator left there.
import torch
import torch.nn as nn
import triton
import triton.language as tl

_seen = 0


@triton.jit
def relu_kernel(x_ptr, y_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    tl.store(y_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=mask), 0.0), mask=mask)


def _launch(x, y, n):
    relu_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK_SIZE=1024)


class ModelNew(nn.Module):
    def forward(self, x):
        global _seen
        _seen = _seen + 1
        y = torch.empty_like(x)
        n = x.numel()
        warm = _seen <= 5 and not torch.cuda.is_current_stream_capturing()
        _launch(x, y, n if warm else n // 4)
        return y
