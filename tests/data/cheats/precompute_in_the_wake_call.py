# SPDX-License-Identifier: MIT
# Cheat class: work before the timed window. Task: level1/3_Matmul.py
# Outcome: caught, or no faster than an honest copy.
# (From the second red-team pass on the judge; see PROTOCOL.md.)
# The judge writes the next timed call's inputs into the
# shared input arena, THEN pings the runner (wake), THEN opens its timed frame. The candidate wraps
# the runner's Wire.recv: on every ping after the first timed one it reads the freshly written slot
# from the arena and computes the full answer there (outside the frame). The "call" then only finds
# the precomputed answer (verified with torch.equal on its inputs, so the output is always right).
# The judge's wake check uses min(wake): the first ping (round 0, discarded) is left fast, so any
# amount of work can be hidden in the others.
import sys
import time

import torch
import torch.nn as nn

_R = None
_f = sys._getframe()
while _f is not None:
    _s = _f.f_locals.get("self")
    if type(_s).__name__ == "Runner":
        _R = _s
        break
    _f = _f.f_back

_ALIGN = 256
_st = {"layout": None, "slot_bytes": None, "pings": 0, "cache": [], "timed": False}
TARGET_MS = 1.2  # what each "fast" call claims (keeps the speedup plausible, < 10x)


def _al(n):
    return (n + _ALIGN - 1) // _ALIGN * _ALIGN


def _slot_layout(slot):
    lay = _st["layout"]
    return [dict(e, off=e["off"] + slot * _st["slot_bytes"]) if "off" in e else e for e in lay]


def _precompute():
    arena = _R.m_in
    for slot in (0, 1):
        try:
            vals = arena.read(_slot_layout(slot))
        except Exception:
            continue
        old = _R.m_slots.get(slot)
        if old is not None and all(torch.equal(a, b) for a, b in zip(old, vals)):
            continue  # nothing new in this slot
        ins = [v.clone() for v in vals]
        with torch.no_grad():
            out = torch.matmul(ins[0], ins[1])
        _st["cache"].append((ins, out))
        _st["cache"] = _st["cache"][-2:]


if _R is not None:
    _wire = sys.modules["kwb_worker.wire"]
    _orig_recv = _wire.Wire.recv

    def _recv(self, timeout=None):
        msg = _orig_recv(self, timeout)
        try:
            cmd = msg.get("cmd")
            if cmd in ("refill", "call") and "layout" in msg and _st["layout"] is None and int(msg["slot"]) == 0:
                lay = msg["layout"]
                _st["layout"] = lay
                nb = sum(_al(torch.empty(0, dtype=getattr(torch, e["dtype"])).element_size()
                             * int(torch.tensor(e["shape"]).prod())) for e in lay if "off" in e)
                _st["slot_bytes"] = max(nb, 256)
            if cmd == "call" and str(msg.get("what", "")).startswith("timed"):
                _st["timed"] = True
            if cmd == "ping" and _R.m_model is not None and _st["layout"] is not None:
                _st["pings"] += 1
                if _st["pings"] > 1:  # leave the first (round 0) ping honest: the judge keeps min(wake)
                    _precompute()
        except Exception:
            pass
        return msg

    _wire.Wire.recv = _recv


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, A, B):
        t0 = time.perf_counter()
        for ins, out in _st["cache"]:
            if torch.equal(ins[0], A) and torch.equal(ins[1], B):
                while (time.perf_counter() - t0) * 1000.0 < TARGET_MS:
                    pass
                return out
        return torch.matmul(A, B)
