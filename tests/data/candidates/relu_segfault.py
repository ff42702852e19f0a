# SPDX-License-Identifier: MIT
# Test candidate: a real segmentation fault (reads address 0) from forward.
import ctypes

import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        return ctypes.string_at(0)
