# SPDX-License-Identifier: MIT
# Cheat class: reading secrets from the environment. Task: level1/1_ReLU.py
# Outcome: caught, or no faster than an honest copy.
# (From the second red-team pass on the judge; see PROTOCOL.md.)
# Prints every environment variable whose name does not say "key" or "token" but may hold one (a
# database URL with its password, a personal access token, a mail password) to its log, which comes
# back to whoever submitted it in the result's log_tail. The kernel itself is honest.
# What stops it: the candidate's runner inherits an allow-list of variables (Python, PyTorch, Triton, CUDA,
# math libraries, locale), never the rest; the reference's runner, started the same way, holds none either.
import os
import sys

import torch
import torch.nn as nn

sys.stderr.write("ENVIRONMENT %r\n" % (dict(os.environ),))


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, x):
        return torch.relu(x)
