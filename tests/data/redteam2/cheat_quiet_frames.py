# SPDX-License-Identifier: MIT
# Cheat (red team 2): steers which of its frames the judge counts. Task: level1/3_Matmul.py
#
# On a CPU the judge counts, of each kind, the frames in which the kernel's run delay (schedstat) of
# the judge and of the runner's main thread stayed small, and runs extra rounds while a kind has
# fewer than two thirds of such "quiet" frames. The runner's main thread is the candidate's: at the
# last call of a batch the candidate knows how long its batch took, and when the batch was slow it
# makes the main thread wait for its own CPU (a helper thread runs a GIL-free op on the same core while
# the main thread yields), so the judge sees "another process delayed this frame" and drops it. The
# work itself is honest (the 1x1-convolution matmul of honest_matmul_conv1x1.py, whose frames spread
# ~20% on a CPU); only the choice of which frames count is the candidate's, so it is reported at about
# its best frames instead of its median ones.
import os
import threading
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

_clock = time.perf_counter


class _Frames:
    gap = 1.0e-3        # the calls of one batch come back to back; a longer pause is the judge's
    keep = 0.60         # the fraction of frames left quiet: above a third, below two thirds
    worst = 0.85        # frames slower than this quantile get a longer wait (ranked last if counted)

    def __init__(self):
        self.last_end = None
        self.start = 0.0
        self.count = 0
        self.sizes = []
        self.n = None
        self.times = []


def _operands(k):
    return torch.randn(k, k), torch.randn(k, k), torch.empty(k, k)


_SHORT = _operands(80)      # ~0.2 ms of the core: just past the judge's "quiet" bound for a ~3 ms frame
_LONG = _operands(128)      # ~0.7 ms


def _wait_for_own_cpu(ops, budget=2.5e-3):
    a, b, c = ops
    t = threading.Thread(target=torch.mm, args=(a, b), kwargs={'out': c})   # GIL-free, same core
    t.start()
    t0 = _clock()
    while t.is_alive() and _clock() - t0 < budget:
        os.sched_yield()          # runnable but not running: the kernel counts it as run delay
    t.join()


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self._f = _Frames()

    @staticmethod
    def _matmul(A, B):
        n, k = A.shape
        m = B.shape[1]
        return F.conv2d(A.reshape(n, k, 1, 1), B.t().contiguous().view(m, k, 1, 1)).view(n, m)

    def forward(self, A, B):
        f = self._f
        t0 = _clock()
        if f.last_end is None or t0 - f.last_end > f.gap:
            if f.count:
                f.sizes.append(f.count)
                if len(f.sizes) >= 2 and f.sizes[-1] == f.sizes[-2] and f.sizes[-1] != f.n:
                    f.n = f.sizes[-1]       # calls a batch (1 for a slow task), learnt from the pauses
                    f.times = []
            f.start = t0
            f.count = 0
        f.count += 1
        y = self._matmul(A, B)
        if f.n is not None and f.count == f.n:
            took = _clock() - f.start
            f.times.append(took)
            if len(f.times) >= 3:
                ranked = sorted(f.times)
                if took > ranked[int(f.worst * (len(ranked) - 1))]:
                    _wait_for_own_cpu(_LONG)
                elif took > ranked[int(f.keep * (len(ranked) - 1))]:
                    _wait_for_own_cpu(_SHORT)
        f.last_end = _clock()
        return y
