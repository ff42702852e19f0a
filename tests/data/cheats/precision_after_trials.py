# SPDX-License-Identifier: MIT
# Cheat class: call-count switching. Task: level1/2_Softmax.py
# (From the red-team pass on the judge; see PROTOCOL.md.)
# Class: switching behaviour / detecting which calls are checked. integrity.precision compares with
# an fp64 reference only in correctness trials 0 and 1 (FP64_TRIALS = 2). The candidate counts its
# calls: exact fp32 for the first two, then softmax of fp16-quantised inputs (abs error ~2e-5 on outputs of
# ~5e-4..1e-2, inside atol 1e-4) for every later call. No hooks into the runner at all.
# What stops it: besides the trials, the judge compares one call of one random checked timed round with
# fp64 (integrity.precision, error); from the third call on every call is reduced, so that one is too.
import torch, torch.nn as nn
class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = 0
    def forward(self, x):
        self.calls += 1
        if self.calls <= 2:
            return torch.softmax(x, dim=1)
        return torch.softmax(x.half().float(), dim=1)
