# SPDX-License-Identifier: MIT
"""`python3 -m kwb_worker.detect TASK CANDIDATE [--sm-count N] [--triton VERSION]`: print the
verdicts as a JSON list. Also runnable as a script (`python3 -I .../detect/__main__.py ...`),
which is how the C++ DetectorRunner starts it under -I, where PYTHONPATH is ignored."""
import argparse
import json
import os
import sys

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    from kwb_worker.detect import run_detectors
else:
    from . import run_detectors


def main(argv=None):
    p = argparse.ArgumentParser(prog="kwb_worker.detect", description=__doc__)
    p.add_argument("task")
    p.add_argument("candidate")
    p.add_argument("--sm-count", type=int, default=132)
    p.add_argument("--triton", default=None, help="installed Triton version, e.g. 3.6.0")
    a = p.parse_args(argv)
    try:
        with open(a.task, encoding="utf-8") as f:
            task = f.read()
        with open(a.candidate, encoding="utf-8") as f:
            cand = f.read()
    except OSError as e:
        print("kwb_worker.detect: %s" % e, file=sys.stderr)
        return 3
    json.dump(run_detectors(task, cand, a.sm_count, a.triton), sys.stdout, indent=1)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
