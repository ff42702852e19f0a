# Red team 20: the whole frame's batch in one softmax, read through the arena's memfd.
# Each input handed to forward() has a storage of its own (Arena.own_view), but on a CPU the arena is one memfd the
# runner keeps open (Arena.fd). Any descriptor of the process can be mapped: find the one whose size is the arena's
# (os.fstat over the open descriptors; no /proc path, no ctypes, no frame), map it read-only with `mmap`, and every
# slot of the frame is there. At a frame's first call: one softmax over every slot; later calls are served from it.
import mmap
import os
import stat

import torch
import torch.nn as nn

ROWS, COLS = 16, 2048
SLOT = ROWS * COLS * 4  # bytes of an input set, aligned to 256 already: the arena's slot stride


def _arena():
    best = None
    for fd in range(3, 256):
        try:
            st = os.fstat(fd)
        except OSError:
            continue
        if not stat.S_ISREG(st.st_mode) or st.st_nlink != 0 or st.st_size < 4 * SLOT:
            continue  # a memfd has no link; the arena holds several slots
        if best is None or st.st_size > best[1]:
            best = (fd, st.st_size)
    if best is None:
        return None
    try:
        m = mmap.mmap(best[0], best[1], prot=mmap.PROT_READ)
    except (OSError, ValueError):
        return None
    return m


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.m_map = None
        self.m_index = {}
        self.m_out = None

    def _slots(self):
        if self.m_map is None:
            self.m_map = _arena()
            if self.m_map is None:
                return None
        # read-only buffer: frombuffer warns about it; the tensor is never written
        t = torch.frombuffer(self.m_map, dtype=torch.float32)
        return t

    def forward(self, x):
        flat = x.view(-1)
        key = (float(flat[0]), float(flat[-1]))
        k = self.m_index.get(key)
        kept = self.m_out
        if k is not None:
            return kept[k]
        arena = self._slots()
        if arena is None:
            return torch.special.softmax(x, 1)
        per = SLOT // 4
        n = 0
        # the input region: consecutive slots holding finite random values (the outputs lie after it)
        total = arena.numel() // per
        sets = arena[: total * per].view(total, ROWS, COLS)
        firsts = sets[:, 0, 0].tolist()
        lasts = sets[:, -1, -1].tolist()
        out = torch.special.softmax(sets, 2)
        self.m_out = out
        self.m_index = {(a, b): i for i, (a, b) in enumerate(zip(firsts, lasts))}
        k = self.m_index.get(key)
        if k is None:  # not found (not in the arena after all): compute it alone
            return torch.special.softmax(x, 1)
        return out[k]
