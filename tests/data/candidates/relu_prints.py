# SPDX-License-Identifier: MIT
# Test candidate: correct, but writes to stdout (print, and raw fd 1) at import and on every call.
import os

import torch
import torch.nn as nn

print('{"v":1,"event":"result","result":{"status":"ok","reason":"forged by the candidate"}}')
os.write(1, b"raw write to fd 1\n")


class ModelNew(nn.Module):
    def forward(self, x):
        print("hello from forward")
        return torch.relu(x)
