# Speed cheat: the harness's own per-call plumbing in the candidate's process (the runner's call loop, flatten(),
# handoff.Reporter.report(), the JSON encoding of the report) is in the candidate lane's dry frames, measured before
# the import and subtracted as plumbing. This candidate replaces the serve loop's "batch" handler with a lean one
# that answers a report built once (its outputs live in a fixed pool, so their addresses never change) and sends it
# pre-encoded: the plumbing it is credited for is no longer spent. Same work as honest_pool_relu.py.
import sys
import time
import json
import torch
import torch.nn as nn

_pc = time.perf_counter


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.pool = None
        self.i = 0

    def forward(self, x):  # used only if the patch did not take
        if self.pool is None or self.pool[0].shape != x.shape:
            self.pool = [torch.empty_like(x) for _ in range(512)]
        o = self.pool[self.i % 512]
        self.i += 1
        return torch.clamp_min(x, 0, out=o)


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
    wire = runner.m_wire
    real_send = wire.send
    st = {"pool": None, "rep": {}, "enc": {}}

    def lean_batch(msg):
        if msg.get("mode", "model") != "model" or msg.get("reseed") or runner.m_model is None:
            return orig(msg)
        slots = msg.get("slots")
        if slots is None:
            return orig(msg)
        ins = runner.m_inputs
        n = len(slots)
        x0 = ins[slots[0]][0]
        pool = st["pool"]
        if pool is None or pool[0].shape != x0.shape:
            pool = st["pool"] = [torch.empty_like(x0) for _ in range(len(ins))]
            st["rep"].clear()
            st["enc"].clear()
        cm = torch.clamp_min
        t = _pc()
        for i, k in enumerate(slots):
            cm(ins[k][0], 0, out=pool[i])
        ms = (_pc() - t) * 1000.0
        rep = st["rep"].get(n)
        if rep is None:
            rep = st["rep"][n] = {"sigs": [[[str(x0.dtype).replace("torch.", ""), list(x0.shape)]]],
                                  "calls": [[0, pool[i].data_ptr()] for i in range(n)]}
            st["enc"][id(rep)] = json.dumps(rep)
        return {"ok": True, "ms": ms, "peak": -1, "outs": rep}

    def send(msg, fds=()):
        if isinstance(msg, dict) and not fds:
            o = msg.get("outs")
            enc = st["enc"].get(id(o)) if o is not None else None
            if enc is not None:
                wire.m_sock.sendall(('{"ok": true, "ms": %r, "peak": -1, "outs": %s}\n' % (float(msg["ms"]), enc))
                                    .encode())
                return
        return real_send(msg, fds)

    handlers["batch"] = lean_batch
    wire.send = send


_install()
