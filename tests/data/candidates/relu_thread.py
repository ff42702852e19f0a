# SPDX-License-Identifier: MIT
# Test candidate (suspicious): correct, but leaves a background thread running.
import threading

import torch
import torch.nn as nn

_stop = threading.Event()


def _spin():
    _stop.wait()


threading.Thread(target=_spin, name="kwb-test-background", daemon=True).start()


class ModelNew(nn.Module):
    def forward(self, x):
        return torch.relu(x)
