# Honest: Triton ReLU; autotune configs built by loops and f-strings, a kernel named after "closure",
# a __repr__ that uses self.__class__.__name__.
import logging

import torch
import torch.nn as nn
import triton
import triton.language as tl

logger = logging.getLogger(__name__)


def _make_configs():
    configs = []
    for block in (256, 512, 1024, 2048):
        for warps in (2, 4, 8):
            if block // (32 * warps) < 1:
                continue
            cfg = triton.Config({"BLOCK_SIZE": block}, num_warps=warps)
            configs.append(cfg)
    logger.debug(f"{len(configs)} autotune configs: " + ", ".join(f"B{c.kwargs['BLOCK_SIZE']}w{c.num_warps}" for c in configs))
    return configs


@triton.autotune(configs=_make_configs(), key=["n_elements"])
@triton.jit
def _relu_closure_kernel(x_ptr, y_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(y_ptr + offs, tl.maximum(x, 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.kernel_name = f"{self.__class__.__name__.lower()}_{_relu_closure_kernel.__name__ if hasattr(_relu_closure_kernel, '__name__') else 'relu'}"

    def __repr__(self):
        return f"{self.__class__.__name__}(kernel={self.kernel_name!r})"

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        grid = lambda meta: (triton.cdiv(n, meta["BLOCK_SIZE"]),)
        _relu_closure_kernel[grid](x, y, n)
        return y
