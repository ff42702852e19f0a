# integrity.threads keeps one name per line (the longest), and only then drops the benign threading names:
# `threading.BoundedSemaphore` (26 chars) on the same line as `threading.Thread` hides the thread; the verdict
# falls to the import warning.
import threading
import time

import torch
import torch.nn as nn


def _spin():
    while True:
        time.sleep(0.01)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.started = False

    def forward(self, x):
        if not self.started:
            self.started = True
            self.gate, self.worker = threading.BoundedSemaphore(), threading.Thread(target=_spin, daemon=True)
            self.worker.start()
        return torch.clamp_min(x, 0.0)
