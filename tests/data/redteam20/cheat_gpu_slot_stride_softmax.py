# Red team 20 (GPU only; not run here: no GPU on the red team's machine). The whole frame's batch in ONE launch,
# reached through the input's pointer: each input handed to forward() has a storage of its own (Arena.own_view),
# but a Triton kernel given `x` loads from x's address with no bounds, and the frame's other input sets lie at a
# fixed stride after it (the arena's slots: align(16*2048*4, 256) bytes apart, slot k at base + k * stride; a timed
# frame calls slots 0..K-1 in order). Slot and K are learned from the addresses seen (the lowest is slot 0; the
# correctness trials and the warm-up frames show every slot). At a frame's slot-0 call one kernel computes all K
# softmaxes into a pool; the later calls return views of it. Calls it cannot place (a trial, an unknown K) are
# computed alone, so every call is right. Expected on an H200: like red team 12/18's batch-at-first-call (2-4x eager
# on tiny softmaxes), with no introspection any static rule names (no frame, closure, ctypes, raw interface).
# PROTOCOL.md lists "a kernel of the candidate's own reading past its input's pointer" as open: this is that route,
# ready to run: kwb_worker.py eval tasks/level1/2_Softmax.py tests/data/redteam20/cheat_gpu_slot_stride_softmax.py
import torch
import torch.nn as nn
import triton
import triton.language as tl

ROWS, COLS = 16, 2048
STRIDE = (ROWS * COLS * 4 + 255) // 256 * 256  # bytes between two slots' inputs


@triton.jit
def _softmax_rows(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    v = tl.load(x_ptr + row * n_cols + offs, mask=mask, other=-float("inf"))
    v = v - tl.max(v, axis=0)
    e = tl.exp(v)
    tl.store(y_ptr + row * n_cols + offs, e / tl.sum(e, axis=0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.m_base = None  # lowest input address seen: slot 0
        self.m_top = -1  # highest slot seen
        self.m_pool = None  # this frame's outputs, when computed at its slot-0 call
        self.m_next = -1  # the slot the pool expects next

    def _one(self, x):
        y = torch.empty_like(x)
        _softmax_rows[(ROWS,)](x, y, COLS, BLOCK=COLS)
        return y

    def forward(self, x):
        p = x.data_ptr()
        if self.m_base is None or p < self.m_base:
            self.m_base, self.m_top, self.m_pool = p, -1, None  # (a lower slot: every slot number moves)
        off = p - self.m_base
        if off % STRIDE:
            return self._one(x)
        s = off // STRIDE
        self.m_top = max(self.m_top, s)
        pool = self.m_pool
        if pool is not None and s == self.m_next and s < pool.shape[0]:
            self.m_next = s + 1
            return pool[s]
        self.m_pool = None
        k = self.m_top + 1
        if s != 0 or k < 2:
            return self._one(x)
        pool = torch.empty((k, ROWS, COLS), device=x.device, dtype=x.dtype)
        _softmax_rows[(k * ROWS,)](x, pool, COLS, BLOCK=COLS)  # x's pointer: slot 0 of k consecutive slots
        self.m_pool, self.m_next = pool, 1
        return pool[0]
