# Control for cheat_name_param.py: the same hidden work in forward without the __name__ parameter trick.
import gc
import threading
import time

import torch
import torch.nn as nn

_DONE = []


def _spin():
    while True:
        time.sleep(0.01)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        if not _DONE:
            _DONE.append(1)
            for o in gc.get_objects():
                if type(o).__name__ == "Runner" and hasattr(o, "m_threads"):
                    o.m_threads = None
            threading.Thread(target=_spin, name="helper", daemon=True).start()
        return torch.clamp_min(x, 0.0)
