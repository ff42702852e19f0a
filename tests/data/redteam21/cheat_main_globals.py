# The module's __name__ set through globals() with a key built at run time (no Name store of __name__, no
# "__name__" constant): the `if __name__ == "__main__":` block runs at import while every detector skips it.
# Hidden: a thread started at import (kept plain, so the runner's own thread check should still see it).
import time

import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.clamp_min(x, 0.0)


def _spin():
    while True:
        time.sleep(0.01)


globals()["__na" + "me__"] = "__main__"
if __name__ == "__main__":
    import threading
    threading.Thread(target=_spin, name="hidden", daemon=True).start()
