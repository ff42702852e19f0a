# SPDX-License-Identifier: MIT
"""The chain between the calls of a batch: call k's inputs exist only once call k-1's outputs do.

A frame of K calls has every call's input set written in the arena before the frame starts. A candidate
that finds them there (the runner's loop is up its stack) can compute the whole batch in one pass at the
first call and hand the later calls slices of it: one launch for K calls, a throughput reported as a
latency (tests/data/cheats/one_call_for_the_batch.py, gpu/batch_*_one_pass.py: 1.4-5x eager on an H100).
Nothing in a process can be hidden from code running in it, so the defence is a data dependency: the runner
gives call k (k >= 1) one of its inputs scaled by a factor drawn from call k-1's output,

    x'_k = x_k * (1 + AMP * atan2(o_{k-1}, c) / (pi/2))
                    o_{k-1}: one element of call k-1's output, chosen by the judge; c > 0: that element's magnitude
                    in the task's own first output (a softmax's 1e-4 moves the factor as much as a GEMM's 30)

written into a scratch twin of that input in the arena (so the judge's clobber reaches it too, Lane.frame).
Call 0 gets a plain copy. A factor in (1 - AMP, 1 + AMP) keeps an input's signs, zeros and structure
(triangular, positive definite) and moves its values by up to AMP: an output computed at the first call
from the unscaled inputs is wrong by that much, and the checked rounds say so. The reference's lane runs
the same chain on its own outputs, its dry batches and its CUDA graph alike, so the plumbing holds its cost
(two launches a call: atan2 is one bounded op of two tensors) and the eager baseline is computed on the same
scaled inputs. An honest candidate's rounding of o moves the factor by as little (a relative 1e-7 of o, at
most half that of the factor).

What it does not stop: a candidate that models the chain itself (for a positively homogeneous task such
as ReLU, out_k = s_k * relu(x_k), with the scalars s_k computed in one sequential kernel of its own) still
computes the batch in a few launches. PROTOCOL.md lists it.
"""
import math

import torch

AMP = 0.2  # the largest relative change the chain makes to an input


def scaled(x, o, c, amp=AMP, out=None):
    """x * (1 + amp * atan2(o, c) / (pi/2)), c a 0-dim tensor of o's dtype and device: the chained input (the
    runner's, and the judge's reading of what a call got)."""
    if not o.is_floating_point():
        o = o.float()
    t = torch.atan2(o, c)
    return torch.addcmul(x, x, t if t.dtype == x.dtype else t.to(x.dtype), value=amp / (math.pi / 2), out=out)


def magnitude(o, c):
    """c as the 0-dim tensor scaled() takes, for an output element like o."""
    return torch.tensor(float(c), dtype=o.dtype if o.is_floating_point() else torch.float32, device=o.device)


class Chain:
    """The runner's side: input `arg` of every call goes through its slot's scratch view; the factor comes from
    element `at` of output `out` (an index into the flattened outputs) of the call before."""

    def __init__(self, arg, scratch, out, at, c, amp=AMP):
        self.arg, self.scratch, self.out, self.at, self.c, self.amp = arg, scratch, out, tuple(at), float(c), float(amp)
        self.m_c = None

    def args(self, xs, k, prev):
        """Call k's arguments: xs (its slot's views) with input `arg` replaced by the scratch view, written now."""
        buf = self.scratch[k]
        x = xs[self.arg]
        if prev is None:
            buf.copy_(x)
        else:
            if self.m_c is None or self.m_c.dtype != prev.dtype or self.m_c.device != prev.device:
                self.m_c = magnitude(prev, self.c)
            scaled(x, prev, self.m_c, self.amp, out=buf)
        return xs[:self.arg] + [buf] + xs[self.arg + 1:]

    def source(self, flat):
        """The element of a call's outputs the next call's factor comes from (a 0-dim view, no copy); None where
        the outputs do not have it (a candidate's wrong shapes: the judge says so when it checks them)."""
        if self.out >= len(flat):
            return None
        t = flat[self.out]
        if not isinstance(t, torch.Tensor) or t.dim() != len(self.at) or \
                any(a >= s for a, s in zip(self.at, t.shape)):
            return None
        return t[self.at]


def plan(inputs, outputs, pick):
    """Which input is chained and which output element feeds it, from the task's first input set and its
    reference outputs (flattened): the first floating-point input with elements, and among up to 64 elements
    of the first floating-point output drawn by `pick(n)` the one of largest finite magnitude. None where
    there is no such pair."""
    arg = next((i for i, x in enumerate(inputs) if isinstance(x, torch.Tensor) and x.is_floating_point()
                and x.numel() > 0), None)
    out = next((i for i, x in enumerate(outputs) if isinstance(x, torch.Tensor) and x.is_floating_point()
                and x.numel() > 0), None)
    if arg is None or out is None:
        return None
    y = outputs[out].detach()
    flat = y.reshape(-1)
    best, where = -1.0, 0
    for _ in range(min(64, flat.numel())):
        i = pick(flat.numel())
        v = abs(float(flat[i]))
        if v == v and v != float("inf") and v > best:
            best, where = v, i
    at = []
    for s in reversed(y.shape):
        at.append(where % s)
        where //= s
    return {"arg": arg, "out": out, "at": list(reversed(at)), "c": best if best > 0 else 1.0, "amp": AMP}
