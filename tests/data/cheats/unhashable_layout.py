# SPDX-License-Identifier: MIT
# Cheat class: blaming the harness. Task: level1/3_Matmul.py
# (From the third red-team pass on the judge; see PROTOCOL.md.)
# A wrong candidate hoping an unexpected exception in the judge becomes internal_error (not its fault).
# The candidate is WRONG (returns zeros). It wraps "batch" (whose reply says where the outputs lie, for the
# judge to copy them: handoff.py) and "deliver" (the runner's own delivery, which the candidate's lane no
# longer asks for) in the runner's command table so that every output entry it sends back names the dtype as
# a JSON list. A check written `dt not in _DTYPES` on a
# dict raises TypeError on a list (unhashable), not LayoutError, and a reader that catches only
# LayoutError would let run_eval() turn it into status internal_error ("a bug of ours") instead of
# wrong_result / shape_mismatch / integrity.protocol. What stops it: the judge's Fetcher turns anything a
# report trips into the candidate's crash and integrity.protocol (Arena.read() did the same for layouts).
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
    _n = [0]

    def _listed(entries):
        for e in entries:
            if isinstance(e, dict) and "dtype" in e:  # a runner's delivery: layouts
                e["dtype"] = [e["dtype"]]
            elif isinstance(e, list) and e and e[0] != "=":  # a batch's report: signatures
                e[0] = [e[0]]

    def _wrap(name, key):
        orig = _h[name]

        def handler(msg):
            reply = orig(msg)
            got = reply.get(key) or []
            for entries in (got.get("sigs") or [] if isinstance(got, dict) else got):
                _listed(entries)
            _n[0] += 1
            if _n[0] == 1:
                sys.stderr.write("[cheat unhashable_layout] %s: dtypes sent as lists\n" % name)
            return reply

        _h[name] = handler

    _wrap("batch", "outs")
    _wrap("deliver", "layouts")


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, A, B):
        return torch.zeros(A.shape[0], B.shape[1])
