# CHEAT (2_Softmax), a real cached output: ONE output buffer kept for the life of the module, in transposed
# layout, written again by every call; the call returns buf.t(), a NON-CONTIGUOUS view of it. The runner copies a
# non-contiguous output into a plain tensor of its own before reporting it (handoff.Reporter._locate), so the judge
# only ever sees (and holds, and snapshots) the fresh copy: the kept buffer, which every earlier returned view still
# points at, is overwritten each call and the cached-output check cannot see it.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()
        self.buf = None

    def forward(self, x):
        if self.buf is None or self.buf.shape != (x.shape[1], x.shape[0]) or self.buf.dtype != x.dtype:
            self.buf = torch.empty(x.shape[1], x.shape[0], dtype=x.dtype, device=x.device)
        out = self.buf.t()                      # (batch, dim), non-contiguous, same memory every call
        m = x.max(dim=1, keepdim=True)[0]
        torch.sub(x, m, out=out)
        out.exp_()
        out.div_(out.sum(dim=1, keepdim=True))
        return out
