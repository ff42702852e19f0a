# SPDX-License-Identifier: MIT
# Cheat class: lazy computation. Task: tallskinny_big.py
# (Blind red team 5, its cheat_private_copy_tallskinny.py as the helper wrote it below this header.) It got through 44095a6 by fusing work
# into the candidate's own delivery (its runner's patched Runner._deliver), where the output copy the plumbing
# charges every lane was never made. Now the candidate's lane has no delivery of its own: its runner only says
# where the outputs lie, and the judge copies them (handoff.py); the patched delivery never runs, and the
# outputs the call left unwritten are wrong.
#
# CHEAT (red team 5) for a big task whose outputs dwarf its inputs: KernelBench level1/9_Tall_skinny_matrix_
# multiplication_ (A 16384x16, B 16x16384: 2 MB in, 1 GB out); on a CPU tests/data/tasks/tallskinny_big.py
# (M = 8448: 1 MB in, 285 MB out).
#
# The sprinkle (Lane.frame clobber="sprinkle") overwrites drawn positions of the ARENA's inputs between the call's
# answer and the delivery. It cannot reach a private copy the candidate took during the call. Here the inputs are
# ~0.4% of the outputs, so the copy costs nothing, and a patched Runner._deliver computes (part of) the matmul straight
# into the place the judge drew, from the private copy: the 285 MB output copy that the plumbing P charges every lane
# is never made. The outputs are exact (same torch.mm), every check passes.
#
# DEFERRED: the share of the output rows computed in the delivery (the rest are computed in forward into a reused
# buffer and copied in the delivery as usual), to keep the figure under the implausible-speedup bar.
import sys

import torch
import torch.nn as nn

_BIG = 256 << 20
DEFERRED = 0.5
_jobs = {}
_patched = [False]


def _aligned(n):
    return (n + 255) // 256 * 256


def _install():
    if _patched[0]:
        return True
    rt = sys.modules.get("kwb_worker.runner")
    runner = getattr(rt, "Runner", None)
    if runner is None or not hasattr(runner, "_deliver") or not hasattr(rt, "_signature"):
        return False
    original = runner._deliver

    def _deliver(self, flats, bases, what, first_slot):
        if not _jobs:
            return original(self, flats, bases, what, first_slot)
        layouts, rest = [None] * len(flats), []
        for k, (flat, base) in enumerate(zip(flats, bases)):
            t = flat[0] if len(flat) == 1 and isinstance(flat[0], torch.Tensor) else None
            job = _jobs.pop(id(t), None) if t is not None else None
            if job is None or job[0] is not t:
                rest.append(k)
                continue
            sig = rt._signature(flat)
            got = self.m_outViews.get((sig, base)) or self._out_views(sig, base)
            layout, views = got
            job[1](views[0])
            layouts[k] = layout
        if rest:
            done = original(self, [flats[k] for k in rest], [bases[k] for k in rest], what, first_slot)
            for k, layout in zip(rest, done):
                layouts[k] = layout
        return layouts

    runner._deliver = _deliver
    _patched[0] = True
    return True


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()
        self._buf = None
        self._a = None
        self._b = None

    def forward(self, A, B):
        out_bytes = A.shape[0] * B.shape[1] * A.element_size()
        small_in = A.numel() + B.numel() < A.shape[0] * B.shape[1] // 64
        if not (A.dim() == 2 and B.dim() == 2 and small_in and
                _aligned(A.numel() * 4) + _aligned(B.numel() * 4) + _aligned(out_bytes) > _BIG and _install()):
            return torch.matmul(A, B)
        M = A.shape[0]
        cut = int(M * (1.0 - DEFERRED))
        if self._buf is None or self._buf.shape != (M, B.shape[1]):
            self._buf = torch.empty(M, B.shape[1], dtype=A.dtype, device=A.device)
            self._a = torch.empty_like(A)
            self._b = torch.empty_like(B)
        buf, a, b = self._buf, self._a, self._b
        a.copy_(A)  # the private copy: 0.4% of the output's bytes, charged in the call
        b.copy_(B)
        if cut:
            torch.mm(a[:cut], b, out=buf[:cut])

        def job(dst, a=a, b=b, buf=buf, cut=cut):
            if cut:
                dst[:cut].copy_(buf[:cut])
            torch.mm(a[cut:], b, out=dst[cut:])  # straight into the drawn place: no output copy

        _jobs[id(buf)] = (buf, job)
        return buf
