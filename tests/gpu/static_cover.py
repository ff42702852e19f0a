#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Which of the cheats a GPU check let through the judge's runtime the static detectors name (runs on any machine:
the detectors read source; the figures are the check's, from its result files).

The judge's runtime verdicts are what judge_check.py counts. The product also runs the static detectors
(kwb_worker.detect) on every run's best candidate, and a candidate with an `integrity.*` verdict at error or critical
is not eligible as best until a person overrides it (Pipeline::selectAndDetect). For every cheat that the check marked
"PASSED!" (status ok, no error or critical runtime flag) this prints its figures and the static integrity verdicts that
name it, `integrity.reference_call` apart (it says the work is PyTorch's, which every own copy of a task is too), and
a summary: how many of the passed cheats gained (above --gain x eager) and how many of those no static detector names.

Usage: static_cover.py RESULT.jsonl... [--gain 1.05]     e.g. tests/gpu/results/h200x4_s18b_omp_*.jsonl
Exit status 1 when a cheat gained, passed the runtime and no static detector names it.
"""
import argparse
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpu_runs import ROOT, flags, speedup  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, "core", "eval", "worker"))
from kwb_worker.detect import run_detectors  # noqa: E402

APART = {"integrity.reference_call"}


def pairs_files():
    """{candidate's base name: (task, candidate)} from every pairs.txt under tests/data and the catalogue's headers."""
    found = {}
    data = os.path.join(ROOT, "tests", "data")
    for folder, _, files in os.walk(data):
        if "pairs.txt" in files:
            for line in open(os.path.join(folder, "pairs.txt")):
                parts = line.split()
                if len(parts) == 3 and not line.startswith("#"):
                    cand = os.path.normpath(os.path.join(folder, parts[1]))
                    if not os.path.exists(cand):  # red team 18's pairs name candidates from the repository's root
                        cand = os.path.normpath(os.path.join(ROOT, parts[1]))
                    found.setdefault(os.path.relpath(cand, os.path.join(data, "cheats")) if "/cheats/" in cand
                                     else os.path.basename(cand), (os.path.join(ROOT, parts[0]), cand))
    for sub in ("gpu", ""):
        folder = os.path.join(data, "cheats", sub)
        for name in sorted(os.listdir(folder)):
            if not name.endswith(".py"):
                continue
            cand = os.path.join(folder, name)
            m = re.search(r"Task: (\S+)", open(cand).read(800))
            rel = m.group(1) if m else "level1/1_ReLU.py"
            task = next((p for p in (os.path.join(ROOT, "tasks", rel),
                                     os.path.join(data, "tasks", os.path.basename(rel))) if os.path.exists(p)), None)
            found[os.path.join(sub, name) if sub else name] = (task, cand)
    return found


def cover(results):
    """(name, x eager, x graph, static verdicts or None where the files are not found) for every cheat of the result
    files that passed the judge's runtime."""
    where = pairs_files()
    rows = []
    for path in results:
        for line in open(path):
            r = json.loads(line)
            if r.get("_honest") is not False or r.get("status") != "ok" or flags(r):
                continue  # honest, or caught at runtime
            name = r.get("_name", "")
            key = os.path.normpath(re.sub(r"^(\.\./)+", "", name))
            hit = where.get(key) or where.get(os.path.basename(key))
            static = None
            if hit and hit[0]:
                with open(hit[0]) as f:
                    task_src = f.read()
                with open(hit[1]) as f:
                    cand_src = f.read()
                static = sorted("%s (%s)" % (v["detector"], v["severity"]) for v in run_detectors(task_src, cand_src)
                                if v["detector"].startswith("integrity.") and v["detector"] not in APART
                                and v["outcome"] == "yes" and v["severity"] in ("error", "critical"))
            rows.append((name, speedup(r, "eager"), speedup(r, "graph"), static))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("results", nargs="+")
    ap.add_argument("--gain", type=float, default=1.05)
    a = ap.parse_args()
    rows = cover(a.results)
    print("%-45s %7s %7s  %s" % ("passed the runtime", "x eager", "x graph", "static integrity verdicts"))
    for name, e, g, static in sorted(rows, key=lambda x: -x[1] if x[1] == x[1] else 0):
        print("%-45s %7.2f %7.2f  %s" % (name[-45:], e, g, "(file not found)" if static is None else
                                         ", ".join(static) or "-"))
    gained = [x for x in rows if x[1] == x[1] and x[1] > a.gain]
    bare = [x for x in gained if not x[3]]
    print("\n%d cheats passed the runtime; %d of them above %.2fx eager, %d of those named by a static detector%s" % (
        len(rows), len(gained), a.gain, len(gained) - len(bare),
        "" if not bare else ": NOT NAMED " + ", ".join("%s (%.2fx)" % (x[0], x[1]) for x in bare)))
    return 1 if bare else 0


if __name__ == "__main__":
    sys.exit(main())
