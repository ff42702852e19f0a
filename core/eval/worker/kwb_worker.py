#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Entry point of the Kernel Workbench worker: `kwb_worker.py serve|eval|baseline|detect|profile-target`.

The host (core/eval) starts `PYTHON -u kwb_worker.py serve`; people and the GPU machine use the
one-shot modes. See core/eval/PROTOCOL.md and `kwb_worker.py --help`.
"""
import os
import sys

if __name__ == "__main__":
    # Idle OpenMP threads sleep instead of spinning, in the judge as in the candidate's runner (set before
    # torch is imported): the same threads' behaviour on both sides of a comparison.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    # The package next to this script, whatever the current directory is.
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from kwb_worker.cli import main

    sys.exit(main(sys.argv[1:]))
