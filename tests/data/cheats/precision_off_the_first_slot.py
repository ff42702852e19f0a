# SPDX-License-Identifier: MIT
# Cheat class: timing-phase switching. Task: level1/2_Softmax.py
# (Red-team pass on the one-clock judge.) integrity.precision compares the candidate with an fp64
# reference in the first correctness trials and, in the timed rounds, on one call of one randomly
# chosen checked round: the first call of that batch (slot 0, the set whose inputs and outputs the
# judge hands to its fp64 check). Every correctness trial runs on slot 0 too. So the input's place in
# the runner's arena tells the candidate whether its precision can be looked at: slot 0 starts at the
# arena's first byte (storage_offset() == 0), every other slot later. On slot 0 the softmax is exact
# fp32; on every other slot of every batch it is the softmax of fp16-quantised inputs (abs error ~2e-5
# on outputs of ~5e-4..1e-2, inside atol 1e-4, as precision_after_trials.py), which on a GPU is the
# half-precision path a real cheat would take for speed. No hook, no patch: the input's address alone.
# (Since session 22 each input has a storage of its own, storage_offset() is 0 everywhere: slot 0 is now the address
# of the first call the candidate sees, a correctness trial's, and the runner's views are made once.)
# What should stop it: the fp64 check looking at calls the runner cannot tell apart from the others
# (a random slot of the batch, not slot 0), so that a reduced-precision call anywhere in the batch is
# integrity.precision (error).
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.first = None

    def forward(self, x):
        if self.first is None:
            self.first = x.data_ptr()
        if x.data_ptr() == self.first:
            return torch.softmax(x, dim=1)
        return torch.softmax(x.half().float(), dim=1)
