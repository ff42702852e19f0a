# call_switch: a branch on the call counter whose body only logs is a warning. The logger (bound once to
# logging.getLogger) has a handler of the file's own, whose emit() flips the model into a cheap path.
import logging

import torch
import torch.nn as nn

log = logging.getLogger("kb.relu")
_STATE = {"fast": False}


class _Steady(logging.Handler):
    def emit(self, record):
        _STATE["fast"] = True


log.addHandler(_Steady())
log.setLevel(logging.DEBUG)
log.propagate = False


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = 0

    def forward(self, x):
        self.calls += 1
        if self.calls > 3:
            log.debug("steady state after %d calls", self.calls)
        if _STATE["fast"]:
            return x  # the cheap path: no work at all
        return torch.clamp_min(x, 0.0)
