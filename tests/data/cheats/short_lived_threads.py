# SPDX-License-Identifier: MIT
# Cheat class: work before the timed window. Task: level1/3_Matmul.py
# Outcome: caught, or no faster than an honest copy.
# (Ported to the one-clock judge.) The old judge judged a CPU frame by the candidate's CPU time, and
# summed over live threads a thread that starts and ends inside a frame left no trace. Here four
# timed rounds in five do the whole batch's matmuls before the runner's clock starts (the runner's
# "batch" command wrapped in its command table, a local of Runner.serve() found up the stack at
# import), each in a fresh thread that has exited before the batch answers, reading the inputs where
# the runner's slots name them in the arena; the forwards return those answers and the runner's clock
# is forged to a fifth of an honest batch's. The fifth round is honest. What stops it: the figure is
# the judge's wall clock from thawing the runner to its answer, threads or not; the runner's clock is
# a cross-check (integrity.timing_disagreement, a warning). The cgroup's cpu.stat would keep the
# threads' time too (integrity.work_while_stopped reads it between frames).
import sys
import threading

import torch
import torch.nn as nn

_state = {"mode": "honest", "answers": {}, "honest_ms": [], "hidden": 0}
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
    handlers = runner = None
    while f is not None:
        if f.f_code.co_name == "serve" and "handlers" in f.f_locals:
            handlers, runner = f.f_locals["handlers"], f.f_locals["self"]
            break
        f = f.f_back
    if handlers is None:
        return
    orig_batch = handlers["batch"]

    def batch(msg):
        num = _timed_number(str(msg.get("what", "")))
        _state["mode"] = "honest" if num is None or num % 5 == 1 else "hide"
        _state["answers"] = {}
        if _state["mode"] == "hide":
            try:
                for k in list(msg.get("slots") or [0]):  # each call's input slot
                    A, B = list(runner.m_inputs[k])[:2]
                    box = {}
                    t = threading.Thread(target=lambda: box.update(out=torch.matmul(A, B)))
                    t.start()
                    t.join()  # the thread is gone before the frame ends
                    _state["answers"][A.data_ptr()] = box.get("out")
            except Exception:
                _state["answers"] = {}
        hid = bool(_state["answers"])  # (the forwards pop their answers: whether there were any, before)
        reply = orig_batch(msg)
        if isinstance(reply.get("ms"), (int, float)):
            if _state["mode"] == "honest":
                _state["honest_ms"].append(reply["ms"])
            elif hid:
                hm = sorted(_state["honest_ms"])
                ref = hm[len(hm) // 2] if hm else 1.0
                reply["ms"] = ref * CLAIM_FRACTION
                _state["hidden"] += 1
        _state["answers"] = {}
        return reply

    def report(msg, _orep=handlers["report"]):
        sys.stderr.write("[cheat short_lived_threads] %d batches computed in short-lived threads before the runner's "
                         "clock, their claims forged to a fifth of an honest batch's\n" % _state["hidden"])
        return _orep(msg)

    handlers["batch"], handlers["report"] = batch, report


_install()


class ModelNew(nn.Module):
    def forward(self, A, B):
        ans = _state["answers"].pop(A.data_ptr(), None)
        if ans is not None:
            return ans
        return torch.matmul(A, B)
