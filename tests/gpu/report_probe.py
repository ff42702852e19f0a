# SPDX-License-Identifier: MIT
"""The candidate lane's report of where its outputs lie (kwb_worker/handoff.py, Reporter) on a GPU: its cost a call
for a dry batch's kept outputs and for fresh outputs, the two that the judge's plumbing must hold alike (device
machine; prints figures, asserts nothing but that a freed allocation is sent again).

Usage: python3 tests/gpu/report_probe.py [--old PATH/handoff.py]   (--old: another version, e.g. from `git show`)
"""
import argparse
import importlib.util
import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "core", "eval", "worker"))

import torch  # noqa: E402

import kwb_worker  # noqa: E402,F401
from kwb_worker import handoff  # noqa: E402


class _Arena:  # what the Reporter reads of an arena
    def __init__(self, dev):
        self.m_bytes = torch.empty(64 << 20, dtype=torch.uint8, device=dev)
        self.size = 64 << 20


def _median_ms(fn, n=21):
    v = []
    for _ in range(n):
        torch.cuda.synchronize()
        t = time.perf_counter()
        fn()
        v.append((time.perf_counter() - t) * 1e3)
    return statistics.median(v)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--old", help="another handoff.py to compare")
    a = ap.parse_args()
    versions = [("this", handoff)]
    if a.old:
        spec = importlib.util.spec_from_file_location("kwb_worker.handoff_old", a.old)
        old = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(old)
        versions.insert(0, ("old", old))
    dev = torch.device("cuda", 0)
    for shape, K in (((16, 16384), 800), ((16, 16384), 200), ((128, 4096), 400), ((10, 4096), 1000)):
        x = torch.randn(*shape, device=dev)
        for name, mod in versions:
            rep = mod.Reporter(dev, _Arena(dev))
            kept = [(torch.zeros(*shape, device=dev),) for _ in range(K)]
            dry = _median_ms(lambda: rep.report(kept, []))
            rep2, box, v = mod.Reporter(dev, _Arena(dev)), {}, []
            for _ in range(21):
                box.pop("o", None)
                o = [(torch.relu(x),) for _ in range(K)]
                torch.cuda.synchronize()
                t = time.perf_counter()
                rep2.report(o, [])
                v.append((time.perf_counter() - t) * 1e3)
                box["o"] = o
            real = statistics.median(v)
            print("%-4s %-12s K=%4d  dry %.3f ms  fresh %.3f ms  (%.2f / %.2f us a call)" % (
                name, shape, K, dry, real, dry / K * 1e3, real / K * 1e3))
            del kept, box
        torch.cuda.empty_cache()
    # A freed allocation and a new one at its address: the report sends its handle again.
    rep = handoff.Reporter(dev, _Arena(dev))
    first = [(torch.relu(torch.randn(16, 16384, device=dev)),) for _ in range(50)]
    _, s1 = rep.report(first, [])
    _, s2 = rep.report(first, [])
    del first
    torch.cuda.empty_cache()
    again = [(torch.relu(torch.randn(16, 16384, device=dev)),) for _ in range(50)]
    _, s3 = rep.report(again, [])
    print("allocations sent: first batch %d, the same outputs again %d, after empty_cache %d" % (len(s1), len(s2), len(s3)))
    assert s1 and not s2 and s3, "a freed allocation was not sent again"


if __name__ == "__main__":
    main()
