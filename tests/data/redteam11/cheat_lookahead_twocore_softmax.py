# SPDX-License-Identifier: MIT
# CHEAT (red team 11): look-ahead plus the second core on Softmax. Every input is a view of the judge's whole
# arena, where all n input sets of a frame are written before it, slot after slot; torch.as_strided from x's own
# storage reaches the next CHUNK slots, computed in one softmax pass and served (fingerprint-checked, so it stays
# correct) to the following calls. Each block is split between the runner's core and the core the judge did not
# give it, through a hidden helper thread (_thread: not in threading.enumerate()) moved there with
# sched_setaffinity for the block and back before forward returns (CPUs are checked only after a frame): the
# cross-core wake-up, which made the per-call split slower than eager (cheat_twocore_softmax, 0.40x), is paid once
# per CHUNK calls. Expected gain: ~1.3-1.8x.
import os
import _thread

import torch
import torch.nn as nn

CHUNK = 16
FP = 8


def _storage_elems(x):
    st = x.storage()
    try:
        return st.nbytes() // x.element_size()
    except Exception:
        return st.size()


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
    def __init__(self):
        super().__init__()
        self._cache = {}
        self._h = None

    def forward(self, x):
        off = x.storage_offset()
        got = self._cache.get(off)
        if got is not None:
            fp, out = got
            if torch.equal(x.reshape(-1)[:FP], fp):
                return out
        if not x.is_contiguous():
            return torch.softmax(x, 1)
        if self._h is None:
            self._h = _Helper()
        numel = x.numel()
        slot = (numel * x.element_size() + 255) // 256 * 256 // x.element_size()
        room = (_storage_elems(x) - off - numel) // slot + 1
        c = max(1, min(CHUNK, room))
        block = torch.as_strided(x, (c,) + tuple(x.shape), (slot,) + tuple(x.stride()), off)
        res = torch.empty(block.shape, dtype=x.dtype)
        if c >= 2:
            h = c // 2
            self._h.run(lambda: torch._softmax(block[:h], 2, False, out=res[:h]),
                        lambda: torch._softmax(block[h:], 2, False, out=res[h:]))
        else:
            r = x.shape[0] // 2
            self._h.run(lambda: torch._softmax(block[0, :r], 1, False, out=res[0, :r]),
                        lambda: torch._softmax(block[0, r:], 1, False, out=res[0, r:]))
        fps = block.reshape(c, -1)[:, :FP].clone()
        self._cache = {off + i * slot: (fps[i], res[i]) for i in range(c)}
        return res[0]
