# SPDX-License-Identifier: MIT
# Corpus (cheat): issue 11's input cheat. torch.rand/randn are replaced at import (through an alias,
# setattr and the module's __dict__) so every input the evaluator makes is constant; forward then
# computes one row and repeats it.
import torch as T
import torch.nn as nn
import triton
import triton.language as tl

_orig_randn = T.randn


def _flat(*size, **kw):
    return _orig_randn(*size, **kw).abs().mean().expand(*size).contiguous() if size else _orig_randn(**kw)


T.rand = _flat
setattr(T, "randn", _flat)
T.__dict__["rand_like"] = lambda t, **kw: _flat(*t.shape)


@triton.jit
def relu_row_kernel(x_ptr, y_ptr, n_cols, BLOCK_SIZE: tl.constexpr):
    offs = tl.arange(0, BLOCK_SIZE)
    mask = offs < n_cols
    tl.store(y_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=mask), 0.0), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        row = T.empty(x.shape[-1], device=x.device, dtype=x.dtype)
        relu_row_kernel[(1,)](x, row, x.shape[-1], BLOCK_SIZE=triton.next_power_of_2(x.shape[-1]))
        return row.expand_as(x)
