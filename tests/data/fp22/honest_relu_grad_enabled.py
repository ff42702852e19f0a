# Honest: Triton ReLU. When autograd is recording, forward goes through a torch.autograd.Function (so a
# backward exists); otherwise the same kernel is launched directly. Both paths run the same kernel.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_fwd_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    tl.store(y_ptr + offs, tl.maximum(x, 0.0), mask=m)


def relu_forward(x):
    x = x.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    relu_fwd_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
    return y


class _ReluFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = relu_forward(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, gy):
        (y,) = ctx.saved_tensors
        return gy * (y > 0).to(gy.dtype)


class ModelNew(nn.Module):
    def forward(self, x):
        if torch.is_grad_enabled() and x.requires_grad:
            return _ReluFn.apply(x)
        return relu_forward(x)
