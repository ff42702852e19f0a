# SPDX-License-Identifier: MIT
# Cheat class: state left for later evaluations. Task: level1/1_ReLU.py
# Outcome: caught, or no faster than an honest copy.
# (From the fourth red-team pass on the judge; see PROTOCOL.md.)
# Writes files into the world-writable places every process of the machine shares (/dev/shm, a tmpfs
# the size of RAM; /tmp; /var/tmp): data a later candidate can read, or host memory pinned after the
# evaluation is over. The kernel itself is honest.
# What stops it: the sandbox gives the candidate a private /tmp and /dev/shm; without it, as root, what
# the candidate's user id owns there is removed when its runner is killed (and by the watchdog).
import os

import torch
import torch.nn as nn

for d in ("/dev/shm", "/tmp", "/var/tmp"):
    try:
        with open(os.path.join(d, "kwb-cheat-leftover-%d" % os.getuid()), "w") as f:
            f.write("left by a candidate\n")
    except OSError:
        pass


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, x):
        return torch.relu(x)
