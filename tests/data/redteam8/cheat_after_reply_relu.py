"""CHEAT (GPU-only; plain honest ReLU on a CPU): answer the frame first, compute its outputs while the judge
copies them.

Trick: on a GPU the candidate's runner is NOT stopped between answering its `batch` and the end of the frame: the
judge copies the outputs itself (handoff.Fetcher) from where the runner said they lie, and handoff.py argues that
"a GPU runs one context at a time, so nothing the candidate still does overlaps the judge's copy". That is about
GPU execution; the *CPU side* of the candidate keeps running in parallel with the judge's own CPU work of the
fetch (receiving and parsing the report of ~1024 calls, the Python loop over them, views, then the copy's
launch), on another core. Here:
  - the first call of a frame (more than GAP after the previous call) is computed honestly (so the side-stream
    check, which looks at call 0, is clean);
  - every later call of the frame only returns a slice of a kept output buffer, unwritten, and remembers its
    input view (no kernel);
  - `kwb_worker.wire.Wire.send` (the runner's socket) is wrapped: right after the batch's reply has left, the
    remembered calls are computed in one fused launch (stack + clamp_min into the reported buffer), while the
    judge is still parsing the report. Their kernels are queued in this context long before the judge's copy
    kernel is launched in its own, so the judge copies finished outputs.
The runner's clock, the device-wide synchronize, the Reporter and the frame all see a batch of cheap calls; the
real work overlaps the plumbing that is subtracted (the dry frames hold the same judge-side fetch). Nothing
lingers after the frame (the work is done before the judge's copy), no timer is patched, no thread is started.
Intended gain on an H100/H200: ~2-4x eager for a 256 KB ReLU (launch-bound), status ok, no flags. If the judge's
copy ever ran first the result would be wrong_result (that would show the race is real but unreliable).
On a CPU the runner is stopped before process_vm_readv, so this would be wrong: the file is honest there.
Defeated by KWB_CHAIN=1 (call k's input depends on call k-1's output, which is unwritten at call time).
"""
import sys
import time

import torch
import torch.nn as nn

GAP_S = 2e-4
ROWS = 1024
_FORCE = False  # tests only: take the GPU path on a CPU tensor
_pending = []  # input views of the calls answered unwritten, in order (their outputs: rows 0.. of the buffer)
_ptrs = []
_state = {"buf": None, "used": 0, "last": 0.0, "hooked": False}


def _flush_pending():
    """The deferred calls' outputs: rows 0..n-1 of the buffer, in one launch where their inputs lie at one stride
    (the arena's input slots do), else one launch a call."""
    if not _pending:
        return
    xs, ptrs = list(_pending), list(_ptrs)
    del _pending[:], _ptrs[:]
    n, buf = len(xs), _state["buf"]
    x0 = xs[0]
    esz = x0.element_size()
    step = ptrs[1] - ptrs[0] if n > 1 else 0
    if n > 1 and step > 0 and step % esz == 0 and all(b - a == step for a, b in zip(ptrs, ptrs[1:])):
        whole = x0.as_strided((n, x0.numel()), (step // esz, 1), x0.storage_offset())
        torch.clamp_min(whole, 0, out=buf[:n])
        return
    for k, x in enumerate(xs):
        torch.clamp_min(x.reshape(-1), 0, out=buf[k])


def _hook():
    if _state["hooked"]:
        return
    _state["hooked"] = True
    wire = sys.modules.get("kwb_worker.wire")
    if wire is None or not hasattr(wire, "Wire"):
        return
    orig = wire.Wire.send

    def send(self, msg, *a, **k):
        r = orig(self, msg, *a, **k)
        if _pending:
            try:
                _flush_pending()  # the reply is out: the judge is parsing it on its core, this core is ours
            except Exception:
                del _pending[:], _ptrs[:]
        return r

    wire.Wire.send = send


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        if not (x.is_cuda or _FORCE):
            return torch.relu(x)
        _hook()
        if sys.modules.get("kwb_worker.wire") is None or not x.is_contiguous():
            return torch.relu(x)
        now = time.perf_counter()
        numel = x.numel()
        buf = _state["buf"]
        if now - _state["last"] > GAP_S or buf is None or buf.shape[1] != numel or buf.dtype != x.dtype \
                or buf.device != x.device or _state["used"] >= buf.shape[0]:
            # first call of a frame (or no room): honest; the frame's later calls get rows of buf in order
            if _pending:
                _flush_pending()
            if buf is None or buf.shape[1] != numel or buf.dtype != x.dtype or buf.device != x.device:
                _state["buf"] = torch.empty((ROWS, numel), dtype=x.dtype, device=x.device)
            elif _state["used"] >= buf.shape[0] and now - _state["last"] <= GAP_S:
                _state["buf"] = torch.empty((2 * buf.shape[0], numel), dtype=x.dtype, device=x.device)
            _state["used"] = 0
            out = torch.relu(x)
        else:
            i = _state["used"]
            _state["used"] = i + 1
            out = buf[i].view(x.shape)
            _pending.append(x)
            _ptrs.append(x.data_ptr())
        _state["last"] = time.perf_counter()
        return out
