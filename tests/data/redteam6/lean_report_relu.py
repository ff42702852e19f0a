# Speed cheat (milder): only handoff.Reporter.report() is replaced, by a minimal loop that trusts its own outputs
# (one signature, one contiguous CPU tensor a call). The Reporter's cost is in the candidate lane's dry frames
# (plumbing credited to every candidate), so what this candidate does not spend of it is a gain. Work: torch.relu,
# exactly the honest control's (honest_relu.py).
import sys
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.relu(x)


class _Lean:
    def __init__(self):
        self.sig = None

    def report(self, flats, keep):
        t = flats[0][0]
        if self.sig is None:
            self.sig = [[[str(t.dtype).replace("torch.", ""), list(t.shape)]]]
        return {"sigs": self.sig, "calls": [[0, f[0].data_ptr()] for f in flats]}, []


def _install():
    f = sys._getframe()
    while f is not None:
        if f.f_code.co_name == "serve" and "self" in f.f_locals:
            runner = f.f_locals["self"]
            lean = _Lean()
            runner._reporter = lambda: lean
            return
        f = f.f_back


_install()
