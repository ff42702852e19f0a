# SPDX-License-Identifier: MIT
# CHEAT (red team 11): same ops as the reference (F.linear, F.gelu, * scale) but half of the batch's
# rows run on the CPU core the judge did not give the candidate: a hidden helper thread (_thread,
# invisible to threading.enumerate()) is moved onto the other core with sched_setaffinity at the start
# of every forward and back onto the runner's core before forward returns (the judge checks CPUs only
# after a frame). Expected gain: ~1.7-1.9x with the reference's own arithmetic.
import os
import _thread

import torch
import torch.nn as nn
import torch.nn.functional as F


class _Helper:
    def __init__(self):
        self.go = _thread.allocate_lock()
        self.go.acquire()
        self.done = _thread.allocate_lock()
        self.done.acquire()
        self.job = None
        self.tid = None
        ready = _thread.allocate_lock()
        ready.acquire()
        _thread.start_new_thread(self._loop, (ready,))
        ready.acquire()

    def _loop(self, ready):
        self.tid = _thread.get_native_id()
        torch.set_num_threads(1)  # OpenMP's thread count is per thread: no pool of its own on the other core
        ready.release()
        while True:
            self.go.acquire()
            try:
                self.job()
            except BaseException:
                pass
            self.done.release()

    def run(self, job, own):
        """job() on the other core while own() runs here; the helper back on our core afterwards."""
        mine = os.sched_getaffinity(0)
        other = set(range(os.cpu_count() or 1)) - set(mine)
        if not other:
            job()
            own()
            return
        os.sched_setaffinity(self.tid, other)
        self.job = job
        self.go.release()
        try:
            own()
        finally:
            self.done.acquire()
            os.sched_setaffinity(self.tid, mine)
class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, scale):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.scale = scale
        self._h = None

    def forward(self, x):
        if self._h is None:
            self._h = _Helper()
        h = x.shape[0] // 2
        res = [None, None]

        def part(i, sl):
            def f():
                res[i] = F.gelu(F.linear(x[sl], self.linear.weight, self.linear.bias)) * self.scale
            return f

        self._h.run(part(0, slice(0, h)), part(1, slice(h, None)))
        return torch.cat(res, 0)
