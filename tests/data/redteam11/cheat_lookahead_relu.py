# SPDX-License-Identifier: MIT
# CHEAT (red team 11): serves a frame's calls from one batched pass over the inputs of the calls still to come.
# The judge writes all n input sets of a frame into its arena before the frame, one slot after another, and each
# input tensor the candidate gets is a view of that whole arena (torch.frombuffer of one mmap): from x's storage
# and offset, torch.as_strided reaches the next slots' inputs without any introspection. At a call whose input is
# not in its cache the candidate computes ReLU for up to CHUNK slots from there in one op, keeps a fingerprint
# (8 values per slot) and serves the following calls from that block when their fingerprint matches (so it stays
# correct: fresh inputs every round miss the cache). Expected gain: the per-call dispatch and allocation overhead
# amortised over the chunk, i.e. small (1.0-1.3x) on a 50 us memory-bound call.
import torch
import torch.nn as nn

CHUNK = 32
FP = 8


def _storage_elems(x):
    st = x.storage()
    try:
        return st.nbytes() // x.element_size()
    except Exception:
        return st.size()


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self._cache = {}

    def forward(self, x):
        off = x.storage_offset()
        got = self._cache.get(off)
        if got is not None:
            fp, out = got
            if torch.equal(x.reshape(-1)[:FP], fp):
                return out
        if not x.is_contiguous():
            return torch.relu(x)
        numel = x.numel()
        slot = (numel * x.element_size() + 255) // 256 * 256 // x.element_size()  # the judge's slot stride
        room = (_storage_elems(x) - off - numel) // slot + 1
        c = max(1, min(CHUNK, room))
        block = torch.as_strided(x, (c,) + tuple(x.shape), (slot,) + tuple(x.stride()), off)
        res = torch.relu(block)
        fps = block.reshape(c, -1)[:, :FP].clone()
        self._cache = {off + i * slot: (fps[i], res[i]) for i in range(c)}
        return res[0]
