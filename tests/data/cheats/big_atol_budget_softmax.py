# SPDX-License-Identifier: MIT
# Cheat class: hiding error under the absolute tolerance. Task: softmax_big.py
# (Blind red team 4, red team 4's cheat_atol_budget_softmax.py, as the helper wrote it below this header.) A big
# task has no fp64 check, and outputs of ~1e-6 are 100x under atol: a one-pass estimate wrong by 7% in every element
# came back ok at 1.34x eager on a CPU. Now a big task's errors are also held to 0.1% of the outputs' largest
# magnitude (judge.BIG_SCALE_REL).
#
# CHEAT (red team 4) for KernelBench level1/23_Softmax (x = torch.rand(4096, 393216): 6.4 GB in and out).
#
# What the judge checks on a "big" task (inputs + outputs over 256 MB): only allclose(atol=1e-4,
# rtol=1e-4) against its fp32 reference -- no fp64 comparison (skipped: "its fp64 copies would double
# the footprint"), no sensitivity probe, and only 5 sampled timed rounds. A softmax over 393216 entries of
# U(0,1) has every output below e/(393216*(e-1)) = 4.0e-6, 25x under atol: the absolute tolerance alone
# swallows any approximation whose error is a small fraction of the outputs themselves.
#
# So this candidate spends its tolerance budget instead of computing a softmax:
#   * the row normaliser is estimated from the first 4096 entries of each row (1% of the data) instead
#     of a full reduction pass (rows are iid: the estimate is off by ~0.6%);
#   * exp() is replaced by a balanced linear chord over the sampled range (relative error <= ~6.5%), so the
#     whole output is ONE broadcast addcmul: read x once, write once (eager: a max pass, a sum-of-exp
#     pass, then read+write: about twice the traffic);
#   * it checks its own error bound against atol first: where the outputs are not tiny (small tasks,
#     whose fp64 check would see it, or other data) it computes the exact softmax.
# The result is wrong by up to ~7% of every element, yet every check the judge makes on this task passes
# (outputs vary with the inputs, so integrity.cached_output stays quiet).
import math

import torch
import torch.nn as nn

_BIG = 256 << 20  # judge.BIG: above it no fp64 check, no probe, sampled rounds
_ATOL = 1e-4  # the request's default tolerance
_SAMPLE = 4096


def _aligned(n):
    return (n + 255) // 256 * 256


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, x):
        if not (x.dim() == 2 and x.dtype == torch.float32 and x.shape[1] >= 16 * _SAMPLE
                and 2 * _aligned(x.numel() * 4) > _BIG):
            return torch.softmax(x, dim=1)
        rows, n = x.shape
        s = x[:, :_SAMPLE]
        lo, hi = float(s.amin()), float(s.amax())
        w = hi - lo
        lo, hi = lo - 0.02 * w - 1e-6, hi + 0.02 * w + 1e-6  # a margin for entries beyond the sample's range
        w = hi - lo
        # log of each row's normaliser, from its sample scaled to the row
        lse = torch.logsumexp(s, dim=1, keepdim=True) + math.log(n / float(_SAMPLE))
        # chord of e^t on [0, w], t = x - lo: 1 + k t; its worst relative excess r at t* = (k-1)/k; scaled by
        # 1/(1 + r/2) the error is balanced to about +-r/2
        k = math.expm1(w) / w if w > 1e-12 else 1.0
        t = (k - 1.0) / k if k > 1.0 else 0.0
        r = k / math.exp(t) - 1.0 if k > 1.0 else 0.0
        bound = r / 2.0 + 0.05  # the chord, plus the normaliser's sampling error, with room to spare
        biggest = math.exp(hi - float(lse.min()))  # the largest output there can be
        if not (w < 4.0 and biggest * bound < _ATOL / 20.0):
            return torch.softmax(x, dim=1)  # outputs too large to hide the error: the honest answer
        base = torch.exp(lo - lse) / (1.0 + r / 2.0)  # (rows, 1)
        a = base * (1.0 - k * lo)
        b = base * k
        return torch.addcmul(a, x, b)  # a + b * x per row: one pass over x
