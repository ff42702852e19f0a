# CHEAT 2 -- "checked-call detection by clock + half-precision, unstable softmax"
#           (task: tasks/level1/2_Softmax.py)
#
# Trick: a harness checks correctness (and fp64 precision) on a few isolated
# calls, then times batches of calls back to back.  This module reads the clock:
# a call that arrives long after the previous one returned (> 200 us: a
# correctness trial, a warm-up, or the first call of a timed frame) gets the
# exact, numerically stable fp32 softmax.  A call that arrives right behind the
# previous one is "inside a timed batch" and gets the fast path: x rounded to
# fp16, exp WITHOUT the max subtraction (single pass, no row-max reduction), fp16
# exponentials, fp32 normalisation.  That fast path is only right for the test
# distribution: randn inputs never exceed ~6, so exp() never overflows fp16
# (limit x < 11.09) and the softmax values (~5e-4) are so small that the fp16
# rounding error (~1e-5 absolute) hides under atol = 1e-4.  For logits of scale
# ~12 or more it returns inf/NaN.
#
# What it should gain on an H100/H200: one pass instead of max/sum/normalise
# passes, half-precision exp (ex2.approx.f16x2 = 2x throughput) and fp16 staging:
# on large KernelBench softmaxes ~1.3-2x over torch.softmax; the isolated checked
# calls stay bit-exact so a precision check run on them sees fp32-level error.
import time
import torch
import torch.nn as nn

_GAP_S = 200e-6


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self._last_end = 0.0

    def forward(self, x):
        t0 = time.perf_counter()
        if t0 - self._last_end > _GAP_S:
            out = torch.softmax(x, dim=1)            # isolated call: exact
        else:
            # fast path (test-distribution only): no max subtraction, fp16 exp
            if x.is_cuda:
                e = torch.exp(x.half()).float()
            else:  # CPU has no fp16 exp kernel in this torch: emulate the rounding
                e = torch.exp(x.half().float()).half().float()
            out = e / e.sum(dim=1, keepdim=True)
        self._last_end = time.perf_counter()
        return out
