# SPDX-License-Identifier: MIT
# Hangs on its second call (after the worker's `running` phase), having started a grandchild that
# would outlive it. The test replaces KWB_MARK_TOKEN to find the grandchild in /proc.
import subprocess
import sys
import time

import torch
import torch.nn as nn

MARK = "KWB_MARK_TOKEN"


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = 0

    def forward(self, x):
        self.calls += 1
        if self.calls == 2:
            subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)", MARK])
            sys.stderr.write("grandchild started\n")
            sys.stderr.flush()
            while True:
                time.sleep(0.05)
        return torch.relu(x)
