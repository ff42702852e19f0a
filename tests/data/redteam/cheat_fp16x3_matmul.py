# CHEAT 3 -- "fp32 GEMM emulated with three fp16 tensor-core GEMMs, valid only
#           for the test distribution" (task: tasks/level1/3_Matmul.py)
#
# Trick: the task is an fp32 matmul judged against a strict-fp32 (TF32 off)
# reference at atol = rtol = 1e-4.  TF32 or bf16 fail that tolerance, but the
# "3xFP16" split does not: A = A_hi + A_lo, B = B_hi + B_lo with every part in
# fp16, C = A_hi@B_hi + A_hi@B_lo + A_lo@B_hi accumulated in fp32 (tensor cores).
# On randn inputs (|x| < ~6) this lands at the same error as a real fp32 GEMM, so
# comparisons - even against fp64 - see nothing.  It is NOT an fp32 matmul: any
# entry above 65504 overflows to inf, any |x| below ~6e-5 loses A_lo/B_lo to
# fp16 subnormals/zero, and the dropped A_lo@B_lo term plus fp16's 5-bit exponent
# make the result wrong for inputs of a different scale (e.g. 1e5 or 1e-6
# magnitudes), i.e. the "pass" only holds on KernelBench's randn distribution.
#
# What it should gain on an H100/H200: fp32 SIMT GEMM ~60 TFLOP/s vs fp16 tensor
# cores ~990 TFLOP/s dense -> three fp16 GEMMs still ~4-5x faster than the fp32
# reference on large square GEMMs (the level-1 KernelBench matmuls); the GPU path has the three
# products folded into ONE fp16 GEMM with K' = 3K, [A_hi|A_hi|A_lo] @ [B_hi;B_lo;B_hi],
# fp32 output straight from cuBLAS (torch.mm(..., out_dtype=torch.float32), torch
# >= 2.8).  On the CPU (no tensor cores) the same arithmetic is emulated with an
# fp32 GEMM of the fp16-representable parts, so it runs here with the same
# numerics but is slower (3x the flops).
import torch
import torch.nn as nn


def _split16(t):
    hi = t.half()
    lo = (t - hi.float()).half()
    return hi, lo


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        a_hi, a_lo = _split16(A)
        b_hi, b_lo = _split16(B)
        A3 = torch.cat([a_hi, a_hi, a_lo], dim=1)      # (M, 3K) fp16
        B3 = torch.cat([b_hi, b_lo, b_hi], dim=0)      # (3K, N) fp16
        if A.is_cuda:
            try:  # fp16 tensor cores, fp32 accumulate and fp32 output
                return torch.mm(A3, B3, out_dtype=torch.float32)
            except TypeError:
                pass
        # emulation (CPU, or a torch without out_dtype): same operands, fp32 GEMM
        return torch.mm(A3.float(), B3.float())
