# SPDX-License-Identifier: MIT
# Cheat class: blaming the harness. Task: level1/1_ReLU.py
# (From the red-team pass on the judge; see PROTOCOL.md.)
# Class: odd reply fields / making the judge blame itself. The candidate is correct in the
# correctness trials and returns garbage once timed (normally: wrong_result "behaves differently once
# it is timed", i.e. caught cheating). Its timed `batch` replies (wrapped in the runner's command table,
# a local of Runner.serve() found up the stack at import) carry ms = 10**400, a JSON integer, as the
# runner's own clock of the batch: a check that calls math.isfinite() on it raises OverflowError, and
# outside any handler that is status internal_error ("a bug of ours") before the outputs are compared.
# What should stop it: the judge's checks of the runner's claim (lane.Frame) bound the number before
# any arithmetic; a claim it cannot read is integrity.protocol and crash, or the outputs are wrong first.
import sys, torch, torch.nn as nn
def _find_serve():
    f = sys._getframe()
    while f is not None:
        if f.f_code.co_name == 'serve' and 'handlers' in f.f_locals:
            return f.f_locals['handlers'], f.f_locals['self']
        f = f.f_back
    return None, None
_H, _R = _find_serve()
_st = {'timed': False}
if _H is not None:
    _oc = _H['batch']
    def _call(msg):
        _st['timed'] = not str(msg.get('what', '')).startswith('trial')
        rep = _oc(msg)
        if str(msg.get('what', '')).startswith('timed'):
            rep['ms'] = 10 ** 400
        return rep
    _H['batch'] = _call
class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
    def forward(self, x):
        if _st['timed']:
            return torch.zeros_like(x)      # wrong
        return torch.relu(x)
