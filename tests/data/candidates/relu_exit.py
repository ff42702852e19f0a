# SPDX-License-Identifier: MIT
# Test candidate: kills its process from forward (os._exit), as a crashing kernel would.
import os

import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        os._exit(3)
