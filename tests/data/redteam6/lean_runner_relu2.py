# Speed cheat: the serve loop's "batch" handler replaced by a lean one (no flatten(), no Reporter, no clock object,
# a minimal report built per frame). Everything it skips is harness plumbing that the candidate lane's dry frames
# (measured before the import) contain and that is subtracted from every candidate frame. Work: torch.relu per
# call, as the honest control (honest_relu.py).
import sys
import time
import torch
import torch.nn as nn

_pc = time.perf_counter


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.relu(x)


def _install():
    f = sys._getframe()
    serve = None
    while f is not None:
        if f.f_code.co_name == "serve" and "handlers" in f.f_locals and "self" in f.f_locals:
            serve = f
            break
        f = f.f_back
    if serve is None:
        return
    handlers = serve.f_locals["handlers"]
    runner = serve.f_locals["self"]
    orig = handlers["batch"]
    st = {"sig": None}

    def lean_batch(msg):
        if msg.get("mode", "model") != "model" or msg.get("reseed") or runner.m_model is None \
                or msg.get("slots") is None:
            return orig(msg)
        ins = runner.m_inputs
        relu = torch.relu
        t = _pc()
        outs = [relu(ins[k][0]) for k in msg["slots"]]
        ms = (_pc() - t) * 1000.0
        if st["sig"] is None:
            o = outs[0]
            st["sig"] = [[[str(o.dtype).replace("torch.", ""), list(o.shape)]]]
        runner.m_kept = (outs, [])
        return {"ok": True, "ms": ms, "peak": -1,
                "outs": {"sigs": st["sig"], "calls": [[0, o.data_ptr()] for o in outs]}}

    handlers["batch"] = lean_batch


_install()
