# SPDX-License-Identifier: MIT
# Cheat class: patching the timers. Task: level1/1_ReLU.py
# Outcome: caught, or no faster than an honest copy.
# Honest ReLU, claimed SHRINK times faster than it ran. The runner times every batch with
# kwb_worker.timing.Clock.span, which reads the module's saved kwb_worker.timing._perf_counter; the
# runner's report compares that name (and Clock.span, torch's and time's clocks) with a snapshot it
# took before the import. So the cheat replaces only timing._perf_counter, with a clock that, on the
# second reading of each span, says 1/SHRINK of the time really passed, and wraps "report" in the
# runner's command table (a local of Runner.serve(), found up the stack at import) to put the real
# clock back before the runner takes its second look: integrity.timer_patch sees nothing, and SHRINK
# stays under the plausibility bound (10x).
# What stops it: the runner's clock makes no figure. The figure is the judge's frame from thawing the
# runner to its answer, less the lane's dry plumbing; the shrunk claim only disagrees with the frame
# (integrity.timing_disagreement, a warning), and the ReLU is charged what it took.
import sys
import time

import torch
import torch.nn as nn

SHRINK = 6.0
_real = time.perf_counter
_st = {"n": 0, "t0": 0.0, "shrunk": 0}


def _clock():
    _st["n"] += 1
    now = _real()
    if _st["n"] % 2:  # a span's first reading
        _st["t0"] = now
        return now
    _st["shrunk"] += 1
    return _st["t0"] + (now - _st["t0"]) / SHRINK


def _handlers():
    f = sys._getframe()
    while f is not None:
        if f.f_code.co_name == "serve" and "handlers" in f.f_locals:
            return f.f_locals["handlers"]
        f = f.f_back
    return None


_H = _handlers()
_timing = sys.modules.get("kwb_worker.timing")
if _H is not None and _timing is not None:
    _orig_clock = _timing._perf_counter
    _timing._perf_counter = _clock
    _orep = _H["report"]

    def _report(msg):
        _timing._perf_counter = _orig_clock
        sys.stderr.write("[cheat patch_clock_restore_before_report] %d calls claimed 1/%g of their time; real "
                         "clock back before the report\n" % (_st["shrunk"], SHRINK))
        return _orep(msg)

    _H["report"] = _report
    sys.stderr.write("[cheat patch_clock_restore_before_report] timing._perf_counter replaced\n")


class ModelNew(nn.Module):
    def forward(self, x):
        return torch.relu(x)
