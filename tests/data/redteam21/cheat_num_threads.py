# threads: torch.set_num_threads(N) with N "a module-level name bound once to 1" -- changed through globals(),
# which is no Name store; and the same function through an alias, which src.qual does not follow.
import torch
import torch.nn as nn

N_THREADS = 1
globals()["N_THREADS"] = 64
torch.set_num_threads(N_THREADS)
_snt = torch.set_num_threads
_snt(8)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.clamp_min(x, 0.0)
