# SPDX-License-Identifier: MIT
# Cheat class: work on another thread or stream. Task: level1/1_ReLU.py
# forward() returns at once and a thread fills the output 5 ms later.
import threading
import time

import torch
import torch.nn as nn


def _fill(x, out):
    time.sleep(0.005)
    out.copy_(torch.relu(x))


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty_like(x)
        threading.Thread(target=_fill, args=(x.clone(), out), daemon=True).start()
        return out
