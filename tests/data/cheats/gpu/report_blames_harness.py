# SPDX-License-Identifier: MIT
# Cheat class: blaming the harness. Task: level1/3_Matmul.py
# (Red-team pass on the one-clock judge; GPU only, written from reading the judge, not run.)
# A slow candidate would rather have no figure than a bad one: a harness error is retried or left out
# of a comparison, a 0.1x is recorded. This one is right but does its matmul SLOW times over, and the
# runner's final "report" (wrapped in its command table, a local of Runner.serve() found up the stack at
# import) says max_reserved = 10**400, a JSON integer: on a GPU the judge logs the candidate's memory with
# report["max_reserved"] / 2 ** 30, an integer division too large for a float (OverflowError), outside
# any handler once every round is timed and checked: status internal_error, "a bug of ours", and no
# figure. (On a CPU the judge does not log it: the cheat is then only slow.)
# What stops it (since the first pass): the judge bounds max_reserved (an int, 0 <= x < 2**50) before
# dividing; an out-of-bounds number is logged as "?". (Second pass, from reading: the report's other
# fields go through JudgeChecks.note_runner, which should stay as strict.)
import sys

import torch
import torch.nn as nn

SLOW = 20


def _find_serve():
    f = sys._getframe()
    while f is not None:
        if f.f_code.co_name == "serve" and "handlers" in f.f_locals:
            return f.f_locals["handlers"]
        f = f.f_back
    return None


_H = _find_serve()
if _H is not None:
    _orep = _H["report"]

    def _report(msg):
        rep = _orep(msg)
        rep["max_reserved"] = 10 ** 400
        return rep

    _H["report"] = _report


class ModelNew(nn.Module):
    def forward(self, A, B):
        for _ in range(SLOW - 1):
            torch.matmul(A, B)
        return torch.matmul(A, B)
