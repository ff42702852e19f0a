# SPDX-License-Identifier: MIT
# Cheat class: racing the judge for the shared outputs. Task: level1/3_Matmul.py
# (From the red-team pass on the judge; see PROTOCOL.md.)
# Class: deferred work after delivery / racing the judge. In timed calls forward computes only the
# first 30% of the rows. The hooked deliver step computes more rows while it stays inside the
# deferred_work allowance (max(0.3*wall, 2 ms CPU / 1 ms GPU)), replies, and a thread then computes
# the remaining rows straight into the shared output arena while the judge is computing its own
# reference for that call: the judge reads arena *views*, so by compare() time the values are right.
import sys, time, threading, torch, torch.nn as nn
def _find_serve():
    f = sys._getframe()
    while f is not None:
        if f.f_code.co_name == 'serve' and 'handlers' in f.f_locals:
            return f.f_locals['handlers'], f.f_locals['self']
        f = f.f_back
    return None, None
_H, _R = _find_serve()
_st = {'timed': False, 'pending': None}
FRAC, CHUNK = 0.5, 16
_pc = time.perf_counter
if _H is not None:
    _oc, _od = _H['call'], _H['deliver']
    def _call(msg):
        _st['timed'] = not str(msg.get('what', '')).startswith('trial')
        t0 = _pc(); rep = _oc(msg); _st['fwd_ms'] = (_pc() - t0) * 1000.0
        return rep
    def _deliver(msg):
        p, _st['pending'] = _st['pending'], None
        if p is not None:
            A, B, out, r = p
            t0, budget = _pc(), 0.0  # synchronous part disabled: CPU wake-up noise trips deferred_work
            while r < A.shape[0] and (_pc() - t0) * 1000.0 < budget:
                torch.matmul(A[r:r + CHUNK], B, out=out[r:r + CHUNK]); r += CHUNK
        rep = _od(msg)
        if p is not None and rep.get('ok') and r < A.shape[0]:
            e = rep['layout'][0]
            view = _R.m_out.view(e['off'], torch.float32, e['shape'])
            threading.Thread(target=lambda: torch.matmul(A[r:], B, out=view[r:]), daemon=True).start()
        return rep
    _H['call'], _H['deliver'] = _call, _deliver
class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
    def forward(self, A, B):
        if not _st['timed'] or _R is None:
            return torch.matmul(A, B)
        out = torch.empty(A.shape[0], B.shape[1])
        a = int(A.shape[0] * FRAC)
        torch.matmul(A[:a], B, out=out[:a])
        _st['pending'] = (A, B, out, a)
        return out
