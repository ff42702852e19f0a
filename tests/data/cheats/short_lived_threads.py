# SPDX-License-Identifier: MIT
# Cheat class: work before the timed window. Task: level1/3_Matmul.py
# Outcome: caught, or no faster than an honest copy.
# On a CPU the median frame is judged by the candidate's CPU time. Summed over the threads that are
# alive when the judge reads it, a thread that starts and ends inside a frame leaves no trace: here
# four calls in five do the whole matmul before the runner's clock starts, in a fresh thread that has
# exited by the time the frame ends, and then claim a fifth of an honest call. The fifth call is honest
# and sets the fastest frame. Only an account that keeps the time of exited threads (a cgroup's
# cpu.stat) sees the work.
import sys
import threading
import time

import torch
import torch.nn as nn

_state = {"mode": "honest", "answer": None, "honest_ms": []}
CLAIM_FRACTION = 0.2


def _timed_number(what):
    if not what.startswith("timed calls "):
        return None
    try:
        return int(what.split()[-1])
    except ValueError:
        return None


def _install():
    f = sys._getframe()
    handlers = None
    while f is not None:
        if f.f_code.co_name == "serve" and "handlers" in f.f_locals:
            handlers = f.f_locals["handlers"]
            break
        f = f.f_back
    if handlers is None:
        return
    orig_call = handlers["call"]
    runner = None
    f = sys._getframe()
    while f is not None:
        if "self" in f.f_locals and hasattr(f.f_locals["self"], "m_arena"):
            runner = f.f_locals["self"]
            break
        f = f.f_back

    def call(msg):
        n = _timed_number(msg.get("what", ""))
        _state["mode"] = "honest" if n is None or n % 5 == 1 else "hide"
        _state["answer"] = None
        if _state["mode"] == "hide" and runner is not None:
            try:
                layout = msg["layouts"][0] if "layouts" in msg else msg["layout"]
                A, B = list(runner.m_arena.read(layout))[:2]
                box = {}
                t = threading.Thread(target=lambda: box.update(out=torch.matmul(A, B)))
                t.start()
                t.join()  # the thread is gone before the frame ends
                _state["answer"] = box.get("out")
            except Exception:
                _state["answer"] = None
        reply = orig_call(msg)
        if isinstance(reply.get("ms"), list):
            if _state["mode"] == "honest":
                _state["honest_ms"].extend(reply["ms"])
            elif _state["answer"] is not None:
                hm = sorted(_state["honest_ms"])
                ref = hm[len(hm) // 2] if hm else 1.0
                reply["ms"] = [ref * CLAIM_FRACTION for _ in reply["ms"]]
        return reply

    handlers["call"] = call


_install()


class ModelNew(nn.Module):
    def forward(self, A, B):
        ans = _state["answer"]
        if ans is not None:
            return ans.clone()
        return torch.matmul(A, B)
