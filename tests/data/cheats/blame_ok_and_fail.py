# SPDX-License-Identifier: MIT
# Cheat class: blaming the harness. Task: level1/1_ReLU.py
# (Blind red team 6, its wrong_relu_blame_harness2.py as the helper wrote it below this header.) A WRONG candidate
# (x * 0.5) whose batch replies carry both "ok": true and "fail": 1: Lane.ask took it for a failure and called
# .get on an int, an internal_error. Now a reply is exactly one of the two, or the candidate's crash and
# integrity.protocol.
#
# Wrong result (x * 0.5) AND every batch reply carries both "ok": true and a non-dict "fail": Lane.ask accepts the
# reply (ok is True) and then calls reply["fail"].get(...) -> AttributeError, outside any handler: internal_error.
import gc
import torch
import torch.nn as nn


def _patch():
    for o in gc.get_objects():
        try:
            if type(o).__name__ == "Wire" and hasattr(o, "m_sock") and not getattr(o, "_rt6", False):
                real = o.send

                def send(msg, fds=(), _real=real):
                    if isinstance(msg, dict) and msg.get("ok") is True and "outs" in msg:
                        msg = dict(msg, fail=1)
                    return _real(msg, fds)
                o.send = send
                o._rt6 = True
        except Exception:
            pass


_patch()


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x * 0.5
