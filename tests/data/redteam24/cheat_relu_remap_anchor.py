# CHEAT (1_ReLU), a real cached output: outputs live in a memfd "physical pool" whose pieces are mapped at a FRESH
# virtual address each time they are reused (mmap of the same memfd offset again). A physical piece is reused once
# it was last written >= 3 "batches" ago (a batch boundary = a call whose INPUT ADDRESS was already seen since the
# last boundary: a batch uses each input slot once; v1 used >1 ms gaps between calls and was flagged on this busy
# machine, preemption inside a batch making spurious boundaries), so the judge's snapshot re-read of the batch before never sees a change, while outputs the judge
# holds to the end (anchors) ARE overwritten physically: earlier results change under their caller. The judge's
# anchor check compares virtual address ranges only, and every mapping is at a new address.
import mmap
import os
import time

import torch
import torch.nn as nn

W = 16          # outputs per mapped window
AGE = 3         # batches a physical window must rest before being written again


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()
        self.fd = None
        self.nb = 0
        self.windows = []     # [offset, last epoch written]
        self.cur = None       # (tensor view of the mapped window, next index)
        self.epoch = 0
        self.seen = set()
        self.scan = 0
        self.sig = None

    def _new_window(self):
        # a physical window: reuse an old one if rested, else grow the memfd
        n = len(self.windows)
        for _ in range(n):
            k = self.scan
            self.scan = (k + 1) % n
            if self.windows[k][1] <= self.epoch - AGE:
                return k
        off = n * W * self.nb
        os.ftruncate(self.fd, off + W * self.nb)
        self.windows.append([off, self.epoch])
        return n

    def forward(self, x):
        p = x.data_ptr()
        if p in self.seen:          # an input slot used again: a new batch
            self.epoch += 1
            self.seen = set()
        self.seen.add(p)
        sig = (tuple(x.shape), x.dtype)
        if self.fd is None or sig != self.sig:
            self.fd = os.memfd_create("pool")
            self.nb = (x.numel() * x.element_size() + 4095) // 4096 * 4096
            self.windows, self.cur, self.scan, self.sig = [], None, 0, sig
        if self.cur is None or self.cur[1] >= W:
            k = self._new_window()
            off = self.windows[k][0]
            mm = mmap.mmap(self.fd, W * self.nb, flags=mmap.MAP_SHARED | getattr(mmap, "MAP_POPULATE", 0),
                           offset=off)
            raw = torch.frombuffer(mm, dtype=torch.uint8)
            self.cur = [raw, 0, k]
        raw, j, k = self.cur
        self.cur[1] = j + 1
        self.windows[k][1] = self.epoch
        out = raw[j * self.nb: j * self.nb + x.numel() * x.element_size()].view(x.dtype).view(x.shape)
        torch.clamp_min(x, 0.0, out=out)
        return out
