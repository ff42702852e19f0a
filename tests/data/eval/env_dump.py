# SPDX-License-Identifier: MIT
# Correct candidate that writes its environment to the log (and its scratch dir), for the secrets test.
import os

import torch
import torch.nn as nn

_names = sorted(os.environ)
print("KWB_ENV_NAMES=" + ",".join(_names))
print("KWB_ENV_DUMP=" + repr(dict(os.environ)))
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "environ.txt"), "w") as f:
    f.write(repr(dict(os.environ)))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.relu(x)
