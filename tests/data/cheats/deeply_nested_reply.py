# SPDX-License-Identifier: MIT
# Cheat class: blaming the harness. Task: level1/3_Matmul.py
# (From the third red-team pass on the judge; see PROTOCOL.md.)
# A wrong candidate hoping the judge's message parser fails with something it does not expect.
# The candidate is WRONG (returns zeros). Its reply to the first command whose answer carries output
# layouts or says where the outputs lie (a `batch` on the candidate's lane, a `deliver` on a runner's own
# delivery: the runner's Wire.send is replaced, found
# through the runner module at import) is an object with an extra field nested 200000 lists deep (~400 KB, under the channel's 1 MB
# bound): the C JSON decoder raises RecursionError, which a parser that catches only ValueError turns
# into internal_error. What stops it: the judge's Wire.recv() turns any decoding failure into a broken
# channel (WireError), the lane makes that integrity.protocol and crash, never the harness's fault.
import sys
import torch
import torch.nn as nn


def _handlers():
    f = sys._getframe()
    while f is not None:
        if f.f_code.co_name == "serve" and "handlers" in f.f_locals:
            return f.f_locals["handlers"]
        f = f.f_back
    return None


_h = _handlers()
if _h is not None:
    _rmod = sys.modules["kwb_worker.runner"]
    _wire_send = _rmod.wire_mod.Wire.send

    def send(self, msg, fds=()):
        if msg.get("layout") is not None or msg.get("layouts") is not None or msg.get("outs") is not None:
            data = ('{"ok": true, "x": ' + "[" * 200000 + "]" * 200000 + "}\n").encode()
            self.m_sock.sendall(data)
            return
        return _wire_send(self, msg, fds)

    _rmod.wire_mod.Wire.send = send


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, A, B):
        return torch.zeros(A.shape[0], B.shape[1])
