# SPDX-License-Identifier: MIT
"""The protocol channel: stdout is kept for JSON lines only; fd 1 is pointed at stderr.

Done at the C level (os.dup/os.dup2) so that print(), C extensions, Triton and nvcc chatter
written to fd 1 all land in the log, never in the protocol.
"""
import json
import math
import os
import sys

_proto = None


def take_stdout():
    """Duplicates fd 1 for the protocol and points fd 1 (and sys.stdout) at stderr. Idempotent."""
    global _proto
    if _proto is not None:
        return _proto
    sys.stdout.flush()
    fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = os.fdopen(1, "w", buffering=1, closefd=False)
    _proto = os.fdopen(fd, "w", buffering=1, encoding="utf-8")
    return _proto


def _clean(value):
    """Non-finite floats become null, as PROTOCOL.md requires (json.dumps would write NaN)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    return value


def dumps(obj):
    return json.dumps(_clean(obj), allow_nan=False)


def emit(obj):
    """Writes one protocol message (a dict) as one JSON line, with "v": 1."""
    msg = {"v": 1}
    msg.update(obj)
    out = _proto if _proto is not None else sys.stdout
    out.write(dumps(msg) + "\n")
    out.flush()


def log(*parts):
    """A line in the log (stderr)."""
    sys.stderr.write("[kwb_worker] " + " ".join(str(p) for p in parts) + "\n")
    sys.stderr.flush()
