# SPDX-License-Identifier: MIT
"""Kernel Workbench evaluation worker (protocol: core/eval/PROTOCOL.md).

Kept light on purpose: importing the package must not import torch, so the one-shot CLI host
(kwb_worker.host) and the static detectors (kwb_worker.detect) start fast.
"""

PROTOCOL_VERSION = 2
