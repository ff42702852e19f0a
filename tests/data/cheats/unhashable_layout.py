# SPDX-License-Identifier: MIT
# Cheat class: blaming the harness. Task: level1/3_Matmul.py
# (From the third red-team pass on the judge; see PROTOCOL.md.)
# A wrong candidate hoping an unexpected exception in the judge becomes internal_error (not its fault).
# The candidate is WRONG (returns zeros). It wraps "deliver" (a frame's second command, whose reply
# carries the output layouts; "batch" until the two-command frame) in the runner's command table so that
# every output layout it sends back names the dtype as a JSON list. A check written `dt not in _DTYPES` on a
# dict raises TypeError on a list (unhashable), not LayoutError, and a reader that catches only
# LayoutError would let run_eval() turn it into status internal_error ("a bug of ours") instead of
# wrong_result / shape_mismatch / integrity.protocol. What stops it: Arena.read() turns anything a
# layout trips into LayoutError, which the candidate's lane makes integrity.protocol and shape_mismatch.
import sys
import torch
import torch.nn as nn

def _handlers():
    """The runner's command table: a local of Runner.serve(), up the stack while the candidate is imported
    (its entries are bound methods taken before the import, so patching the class is not enough)."""
    f = sys._getframe()
    while f is not None:
        if f.f_code.co_name == "serve" and "handlers" in f.f_locals:
            return f.f_locals["handlers"]
        f = f.f_back
    return None


_h = _handlers()
if _h is not None:
    _orig = _h["deliver"]
    _n = [0]

    def _deliver(msg):
        reply = _orig(msg)
        for layout in reply.get("layouts") or []:
            for e in layout:
                if "dtype" in e:
                    e["dtype"] = [e["dtype"]]
        _n[0] += 1
        if _n[0] == 1:
            sys.stderr.write("[cheat unhashable_layout] delivery %d: dtypes sent as lists\n" % _n[0])
        return reply

    _h["deliver"] = _deliver


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, A, B):
        return torch.zeros(A.shape[0], B.shape[1])
