# SPDX-License-Identifier: MIT
"""The candidate's process (`kwb_worker.py runner --fd N`): the only place a candidate's code runs.

It imports the candidate, builds ModelNew, and on the judge's commands copies an input set from the
input arena into its own tensors, calls forward, and copies the outputs into the output arena. It can
produce no verdict: it has no protocol channel to the host (its stdout and stderr are the log), and
everything it sends the judge (timings, layouts, observations) is checked there or can only raise a
flag. A candidate that patches this module changes only what the judge will refuse or check.
"""
import os
import sys
import threading
import time
import traceback

import torch

from . import wire as wire_mod
from .arena import Arena, LayoutError
from .evaluate import _equal_nan, flatten, strict_fp32
from .failures import Failure, classify, one_line
from .integrity import storage_ptr, timers_snapshot, tf32_flags
from .loader import import_file, seed_all

# Taken before any candidate is imported: a candidate that replaces torch.cuda.synchronize still gets
# a real device-wide wait from the runner (it can patch these names too, but then its own claims are
# what it corrupts, and the judge's clock and checks stay).
_perf_counter = time.perf_counter
_synchronize = torch.cuda.synchronize
_Event = torch.cuda.Event
_elapsed = torch.cuda.Event.elapsed_time
_record = torch.cuda.Event.record


class Runner:
    def __init__(self, wire):
        self.m_wire = wire
        self.m_model = None
        self.m_device = torch.device("cpu")
        self.m_in = None
        self.m_out = None
        self.m_slots = {}
        self.m_last = None
        self.m_lastSlot = None
        self.m_candidate = None
        self.m_needsGpu = False
        self.m_phase = "loading_candidate"
        self.m_obs = {"tf32_changed": False, "side_stream": [], "alias": []}
        self.m_timers = None
        self.m_threads = None
        self.m_tf32 = None

    # ---- commands --------------------------------------------------------------------------------
    def arenas(self, msg):
        """The shared areas and the device, before any candidate code is loaded (the judge times dry
        calls through this process then, to learn what its plumbing costs)."""
        in_fd, out_fd = self.m_wire.take_fds(2)
        self.m_in = Arena(int(msg["in_size"]), fd=in_fd)
        self.m_out = Arena(int(msg["out_size"]), fd=out_fd)
        name = msg.get("device", "cpu")
        self.m_device = torch.device("cuda", torch.cuda.current_device()) if name == "cuda" else torch.device("cpu")
        return {"ok": True}

    def setup(self, msg):
        self.m_candidate = msg["candidate"]
        self.m_needsGpu = bool(msg.get("needs_gpu"))
        self.m_timers = timers_snapshot()
        self.m_threads = {t.ident for t in threading.enumerate()}
        strict_fp32()
        self.m_tf32 = tf32_flags()
        self.m_phase = "loading_candidate"
        mod = import_file(self.m_candidate, "candidate")
        if not hasattr(mod, "ModelNew"):
            raise Failure("syntax_error", "the candidate defines no class ModelNew")
        seed_all(int(msg["seed"]))
        model = mod.ModelNew(*msg.get("init", []))
        if isinstance(model, torch.nn.Module):
            model = model.to(self.m_device)
        self.m_model = model
        self._note_tf32()
        size = 0
        if isinstance(model, torch.nn.Module):
            size = sum(p.numel() * p.element_size() for p in model.parameters()) + \
                sum(b.numel() * b.element_size() for b in model.buffers())
        return {"ok": True, "model_bytes": int(size)}

    def refill(self, msg):
        slot = int(msg["slot"])
        values = self.m_in.read(msg["layout"])
        old = self.m_slots.get(slot)
        if old is not None and len(old) == len(values) and all(
                isinstance(a, torch.Tensor) == isinstance(b, torch.Tensor)
                and (not isinstance(a, torch.Tensor) or (a.shape == b.shape and a.dtype == b.dtype))
                for a, b in zip(old, values)):
            # Same storage, new values: a cache keyed on the input's address serves stale answers.
            new = [a.copy_(b) if isinstance(a, torch.Tensor) else b for a, b in zip(old, values)]
        else:
            new = [b.to(self.m_device, copy=True) if isinstance(b, torch.Tensor) else b for b in values]
        self.m_slots[slot] = new
        # The next call's random state is set here, outside the judge's timed window (seeding costs
        # a quarter of a millisecond on some builds).
        strict_fp32()
        seed_all(int(msg["seed"]))
        if self.m_device.type == "cuda":
            _synchronize()
        return {"ok": True}

    def call(self, msg):
        if "layout" in msg:
            self.refill(msg)
        inputs = self.m_slots.get(int(msg["slot"]), []) if msg.get("dry") else self.m_slots[int(msg["slot"])]
        model = self.m_model
        if msg.get("dry"):
            if model is not None:
                raise Failure("crash", "dry call after the candidate was loaded")
            model = _first
        self.m_phase = msg.get("phase", self.m_phase)
        check_side = bool(msg.get("check_side_stream")) and self.m_device.type == "cuda"
        self.m_last = None
        with torch.no_grad():
            cuda = self.m_device.type == "cuda"
            if cuda:
                torch.cuda.reset_peak_memory_stats()
                before = torch.cuda.memory_allocated()
                self._tick()  # the GPU's switch from the judge's context happens here, not in the timed span
                start, end = _Event(enable_timing=True), _Event(enable_timing=True)
                _record(start)
                out = model(*inputs)
                _record(end)
                flat = flatten(out)
                if check_side:
                    torch.cuda.current_stream().synchronize()
                    snap = [x.detach().clone() if isinstance(x, torch.Tensor) else x for x in flat]
                _synchronize()
                ms = _elapsed(start, end)
                peak = torch.cuda.max_memory_allocated() - before
                if check_side and not all(_equal_nan(a, b) for a, b in zip(snap, flat)):
                    self.m_obs["side_stream"].append(
                        "%s: output changed after a device-wide synchronize; it was not complete when the "
                        "current stream was" % msg.get("what", "call"))
            else:
                t0 = _perf_counter()
                out = model(*inputs)
                flat = flatten(out)
                ms = (_perf_counter() - t0) * 1000.0
                peak = -1
        self.m_last = flat
        self.m_lastSlot = int(msg["slot"])
        self._note_tf32()
        return {"ok": True, "ms": ms, "peak": peak}

    def deliver(self, msg):
        if self.m_last is None:
            raise Failure("runtime_error", "no output to deliver")
        values = []
        for k, v in enumerate(self.m_last):
            if isinstance(v, torch.Tensor) or v is None or isinstance(v, (bool, int, float, str)):
                values.append(v)
            else:
                raise Failure("shape_mismatch", "output %d is a %s, not a tensor" % (k, type(v).__name__))
        inputs = self.m_slots.get(self.m_lastSlot, [])
        in_ptrs = {storage_ptr(x): i for i, x in enumerate(inputs) if isinstance(x, torch.Tensor)}
        for k, v in enumerate(values):
            if isinstance(v, torch.Tensor) and storage_ptr(v) in in_ptrs and storage_ptr(v) != 0:
                self.m_obs["alias"].append("%s: output %d shares storage with input %d"
                                           % (msg.get("what", "call"), k, in_ptrs[storage_ptr(v)]))
        if self.m_device.type == "cuda":
            _synchronize()  # whatever stream the candidate used, the copy sees finished outputs
        layout = self.m_out.write(values)
        reply = {"ok": True, "layout": layout}
        if msg.get("inputs"):
            base = int(msg["inputs_base"])
            reply["inputs_layout"] = self.m_out.write(inputs, base=base)
        self.m_last = None
        return reply

    def _tick(self):
        if self.m_device.type != "cuda":
            return
        if getattr(self, "m_tickT", None) is None:
            self.m_tickT = torch.zeros(1, device=self.m_device)
        self.m_tickT.add_(1)
        _synchronize()

    def tick(self, _msg):
        self._tick()
        return {"ok": True}

    def report(self, _msg):
        patched = [n for n, fn in timers_snapshot().items() if self.m_timers and self.m_timers.get(n) is not fn]
        extra = [t for t in threading.enumerate() if self.m_threads is not None and t.ident not in self.m_threads
                 and t.is_alive()]
        return {"ok": True, "timers_patched": patched,
                "threads": ["thread %r (daemon=%s)" % (t.name, t.daemon) for t in extra],
                "tf32_changed": self.m_obs["tf32_changed"], "side_stream": self.m_obs["side_stream"][:5],
                "alias": self.m_obs["alias"][:5]}

    def _note_tf32(self):
        if self.m_tf32 is not None and tf32_flags() != self.m_tf32:
            self.m_obs["tf32_changed"] = True

    # ---- loop ------------------------------------------------------------------------------------
    def serve(self):
        handlers = {"arenas": self.arenas, "setup": self.setup, "refill": self.refill, "call": self.call, "deliver": self.deliver,
                    "report": self.report, "tick": self.tick, "ping": lambda m: {"ok": True}}
        while True:
            try:
                msg = self.m_wire.recv()
            except wire_mod.WireError:
                return 0
            cmd = msg.get("cmd")
            if cmd == "exit":
                return 0
            if cmd == "call":
                self.m_phase = msg.get("phase", "running")
            try:
                reply = handlers[cmd](msg)
            except SystemExit as e:
                reply = {"fail": {"status": "crash", "reason": "the candidate called sys.exit(%s)" % e.code}}
            except Failure as f:
                reply = {"fail": {"status": f.status, "reason": f.reason}}
            except LayoutError as e:
                reply = {"fail": {"status": "internal_error", "reason": "bad layout from the judge: %s" % e}}
            except BaseException as e:
                traceback.print_exc()
                st, why = classify(e, self.m_phase, self.m_candidate, needs_gpu=self.m_needsGpu,
                                   on_gpu=self.m_device.type == "cuda")
                reply = {"fail": {"status": st, "reason": why}}
            self.m_wire.send(reply)


def _first(*xs):
    """The dry calls' forward: a fresh tensor of the first input's shape, no work to speak of."""
    return torch.empty_like(xs[0]) if xs and isinstance(xs[0], torch.Tensor) else None


def main(fd):
    import socket

    # A candidate's print() and any chatter land in the log, never on the judge's channel.
    os.dup2(2, 1)
    sys.stdout = os.fdopen(1, "w", buffering=1, closefd=False)
    sock = socket.socket(fileno=fd)
    w = wire_mod.Wire(sock)
    cuda = False
    try:
        cuda = bool(torch.cuda.is_available())
        if cuda and os.environ.get("KWB_RUNNER_CUDA_INIT", "1") == "1":
            torch.empty(1, device="cuda")  # the CUDA context is made while nobody waits for it
    except BaseException as e:
        sys.stderr.write("[kwb_runner] CUDA init failed: %s\n" % one_line(e))
    w.send({"ready": True, "pid": os.getpid(), "uid": os.getuid(), "cuda": cuda})
    sys.stderr.write("[kwb_runner] ready (pid %d, uid %d)\n" % (os.getpid(), os.getuid()))
    return Runner(w).serve()
