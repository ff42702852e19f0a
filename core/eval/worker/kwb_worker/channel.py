# SPDX-License-Identifier: MIT
"""The protocol channel: stdout is kept for JSON lines only; fd 1 is pointed at stderr.

Done at the C level (os.dup/os.dup2) so that print(), C extensions, Triton and nvcc chatter
written to fd 1 all land in the log, never in the protocol.
"""
import hashlib
import hmac
import json
import math
import os
import sys

from . import PROTOCOL_VERSION as PROTOCOL

_proto = None
_key = None  # the host's per-request key: every message after the request is signed with it


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
    return json.dumps(_clean(obj), allow_nan=False, ensure_ascii=True)


def set_key(hex_key):
    """From now on messages are signed (PROTOCOL.md, "Signed messages")."""
    global _key
    _key = bytes.fromhex(hex_key) if hex_key else None


def sign(body, key):
    return hmac.new(key, body.encode("ascii"), hashlib.sha256).hexdigest()


def envelope(msg, key):
    """The line a signed message travels in: {"v":2,"signed":BODY,"mac":HMAC-SHA256(key, BODY)}."""
    body = dumps(msg)
    return json.dumps({"v": PROTOCOL, "signed": body, "mac": sign(body, key)})


def emit(obj):
    """Writes one protocol message (a dict) as one JSON line, with "v": 2; signed once the request
    brought a key."""
    msg = {"v": PROTOCOL}
    msg.update(obj)
    out = _proto if _proto is not None else sys.stdout
    out.write((envelope(msg, _key) if _key else dumps(msg)) + "\n")
    out.flush()


def log(*parts):
    """A line in the log (stderr)."""
    sys.stderr.write("[kwb_worker] " + " ".join(str(p) for p in parts) + "\n")
    sys.stderr.flush()
