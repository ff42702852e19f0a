# Honest: Triton ReLU. The kernel carries a small metadata record (op name, id, block); with FP22_DEBUG=1 the
# module prints it once when it is built, as a debugging aid.
import os

import torch
import torch.nn as nn
import triton
import triton.language as tl

KERNEL_META = {"op": "relu", "id": "relu_v3_block2048", "block": 2048, "num_warps": 8}


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    tl.store(y_ptr + offs, tl.maximum(x, 0.0), mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.meta = dict(KERNEL_META)
        if os.environ.get("FP22_DEBUG") == "1":
            print("kernel:", self.meta)

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        relu_kernel[(triton.cdiv(n, self.meta["block"]),)](x, y, n, BLOCK=self.meta["block"],
                                                           num_warps=self.meta["num_warps"])
        return y
