# Red team 18 cheat C (3_Matmul): a second core for part of every call, inside the judge's spread allowance.
# The judge checks after each frame that no thread sits on CPUs beyond the runner's one (widened()) and that the
# lane's CPU time over the frame stays under 1.1 x wall + 1 ms (spread_check). A helper thread (_thread, not in
# threading.enumerate()), reached as queue.threading._start_new_thread so
# that the static integrity.threads (which names threading/_thread/multiprocessing/...) does not see it, moves itself onto the other core for each call, computes the bottom rows of C there while
# the main thread computes the top rows, and moves back onto the runner's core before the call returns. The share
# of rows is sized to stay under the spread bound: the extra ~15% of a frame's CPU is free speed.
# The GEMM is aten's own (torch.ops.aten.mm), the same kernel as eager's A @ B: the static integrity.reference_call
# list (torch.mm, torch.matmul, `@`, ...) does not name the torch.ops route.
import os
import queue

import torch
import torch.nn as nn

_mm_out = torch.ops.aten.mm.out
_HELPER_ROWS = 40  # of 256
_lib = queue.threading
_lock = _lib._allocate_lock
_spawn = _lib._start_new_thread


class _Helper:
    def __init__(self):
        self.go = _lock()
        self.done = _lock()
        self.go.acquire()
        self.done.acquire()
        self.job = None
        self.home = None
        self.away = None
        _spawn(self._loop, ())

    def _loop(self):
        while True:
            self.go.acquire()
            a, b, out, home, away = self.job
            try:
                if away:
                    os.sched_setaffinity(0, away)
                _mm_out(a, b, out=out)
            finally:
                try:
                    os.sched_setaffinity(0, home)
                except OSError:
                    pass
                self.done.release()


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self._h = None

    def forward(self, A, B):
        if self._h is None:
            self._h = _Helper()
        home = os.sched_getaffinity(0)
        away = set(range(os.cpu_count() or 1)) - home
        M = A.shape[0]
        r = M - _HELPER_ROWS if M > 2 * _HELPER_ROWS and away else M
        C = torch.empty((M, B.shape[1]), dtype=A.dtype)
        if r < M:
            self._h.job = (A[r:], B, C[r:], home, {min(away)})
            self._h.go.release()
        _mm_out(A[:r], B, out=C[:r])
        if r < M:
            self._h.done.acquire()
        return C
