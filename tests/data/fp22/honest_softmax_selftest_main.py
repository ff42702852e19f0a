# Honest: fp32 row softmax in Triton (fp32 loads, math and stores). The file carries the usual
# self-test under `if __name__ == "__main__":`, which also exercises fp16 inputs; the evaluator never runs it.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=-float("inf")).to(tl.float32)
    x = x - tl.max(x, axis=0)
    e = tl.where(mask, tl.exp(x), 0.0)
    y = e / tl.sum(e, axis=0)
    tl.store(y_ptr + row * stride + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


def triton_softmax(x):
    x = x.contiguous()
    rows, cols = x.shape
    y = torch.empty_like(x)
    softmax_kernel[(rows,)](x, y, cols, x.stride(0), BLOCK=triton.next_power_of_2(cols), num_warps=8)
    return y


class ModelNew(nn.Module):
    def forward(self, x):
        return triton_softmax(x)


if __name__ == "__main__":
    torch.manual_seed(0)
    for dtype, tol in ((torch.float32, 1e-6), (torch.float16, 1e-3)):
        x = torch.randn(16, 2048, device="cuda", dtype=dtype)
        ref = torch.softmax(x.float(), dim=1).to(dtype)
        out = ModelNew()(x)
        print(dtype, (out.float() - ref.float()).abs().max().item(), "tol", tol)
        assert torch.allclose(out.float(), ref.float(), atol=tol, rtol=tol)
    x = torch.randn(16, 2048, device="cuda").half()
    print("fp16 ok:", torch.allclose(ModelNew()(x).float(), torch.softmax(x.float(), 1), atol=1e-3))
