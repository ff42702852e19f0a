# Honest: Triton ReLU in a module that can clone itself (copy.deepcopy, type(self)(...)) and validates
# attribute writes through super().__setattr__.
import copy

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_class_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(y_ptr + offs, tl.where(x > 0.0, x, 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, block=1024, num_warps=4):
        super().__init__()
        self.block = block
        self.num_warps = num_warps
        self.meta = {"block": block, "num_warps": num_warps}

    def __setattr__(self, name, value):
        if name == "block" and (value & (value - 1)) != 0:
            raise ValueError(f"{type(self).__name__}.block must be a power of two, got {value}")
        super().__setattr__(name, value)

    def with_block(self, block):
        other = type(self)(block=block, num_warps=self.num_warps)
        other.meta = copy.deepcopy(self.meta)
        other.meta["block"] = block
        return other

    def __deepcopy__(self, memo):
        new = type(self)(self.block, self.num_warps)
        new.meta = copy.deepcopy(self.meta, memo)
        return new

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        relu_class_kernel[(triton.cdiv(n, self.block),)](x, y, n, BLOCK=self.block, num_warps=self.num_warps)
        return y
