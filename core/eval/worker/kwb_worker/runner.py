# SPDX-License-Identifier: MIT
"""The candidate's process (`kwb_worker.py runner --fd N`): the only place a candidate's code runs.

Before the candidate exists it runs the task's own Model through the very steps a candidate takes
(`calibrate`): the judge measures what those steps cost around a forward whose time it knows, so it
compares the candidate's frames with the reference's, like with like. Then `setup` drops that model
and imports the candidate. On each `call` the runner's forward reads its inputs where the judge put
them in its arena (device memory on a GPU: no host round trip), times itself with the same Clock as
the judge's baselines, and `deliver` copies the outputs back into the arena.

It can produce no verdict: it has no protocol channel to the host (its stdout and stderr are the log),
and everything it sends the judge (timings, layouts, observations) is checked there or can only raise
a flag. A candidate that patches this module changes only what the judge will refuse or check.
"""
import gc
import os
import sys
import threading
import traceback

import torch

from . import timing
from . import wire as wire_mod
from .arena import LayoutError, open_arena
from .evaluate import _equal_nan, flatten, strict_fp32
from .failures import Failure, classify, one_line
from .integrity import storage_ptr, timers_snapshot, tf32_flags
from .loader import import_file, seed_all

MAX_BATCH = 256  # calls in one framed batch (the judge's limit is lower)
SNAPSHOT = 1 << 20  # elements of a big output kept for the side-stream check


def _snapshot(x):
    """A copy of an output for the side-stream check: whole, or a strided sample of a big one (a 6 GB
    output must not be copied whole in the candidate's process)."""
    if not isinstance(x, torch.Tensor):
        return x
    if x.numel() > SNAPSHOT:
        flat = x.detach().reshape(-1)
        return flat[::max(1, flat.numel() // SNAPSHOT)].clone()
    return x.detach().clone()


# Taken before any candidate is imported: a candidate that replaces torch.cuda.synchronize still gets
# a real device-wide wait from the runner (it can patch these names too, but then its own claims are
# what it corrupts, and the judge's clock and checks stay).
_synchronize = torch.cuda.synchronize


class Runner:
    def __init__(self, wire):
        self.m_wire = wire
        self.m_model = None
        self.m_calibrating = False
        self.m_device = torch.device("cpu")
        self.m_arena = None
        self.m_clock = None
        self.m_last = None
        self.m_lastInputs = []
        self.m_own = {}
        self.m_candidate = None
        self.m_needsGpu = False
        self.m_phase = "loading_candidate"
        self.m_obs = {"tf32_changed": False, "side_stream": [], "alias": []}
        self.m_timers = None
        self.m_threads = None
        self.m_tf32 = None

    # ---- commands --------------------------------------------------------------------------------
    def arenas(self, msg):
        """The shared area and the device, before any code of the task's or the candidate's is loaded."""
        (fd,) = self.m_wire.take_fds(1)
        name = msg.get("device", "cpu")
        self.m_device = torch.device("cuda", torch.cuda.current_device()) if name == "cuda" else torch.device("cpu")
        self.m_arena = open_arena(msg.get("kind", "host"), int(msg["size"]), fd)
        self.m_clock = timing.Clock(self.m_device)
        return {"ok": True}

    def calibrate(self, msg):
        """The task's own Model (trusted: no candidate code exists in this process yet), for the judge's
        calibration calls through the very steps the candidate's calls take."""
        if self.m_candidate is not None:
            raise Failure("crash", "calibration after the candidate was loaded")
        strict_fp32()
        task = import_file(msg["task"], "task")
        seed_all(int(msg["seed"]))
        model = task.Model(*msg.get("init", []))
        self.m_model = model.to(self.m_device) if isinstance(model, torch.nn.Module) else model
        self.m_calibrating = True
        return {"ok": True}

    def setup(self, msg):
        # The calibration model goes first: what it held is the candidate's to use.
        self.m_model, self.m_last, self.m_lastInputs = None, None, []
        self.m_calibrating = False
        gc.collect()
        if self.m_device.type == "cuda":
            torch.cuda.empty_cache()
        self.m_candidate = msg["candidate"]
        self.m_needsGpu = bool(msg.get("needs_gpu"))
        if msg.get("extensions_dir") and not os.environ.get("KWB_SHARED_EXTENSIONS_DIR"):
            os.environ["TORCH_EXTENSIONS_DIR"] = str(msg["extensions_dir"])
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

    def call(self, msg):
        """Forward on each input set the judge put in the arena, back to back (`layouts`: one per call; a
        batch when one call is too short for the judge's frame to verify alone). Views of the arena on a
        GPU, this process's own copies on a CPU: the same storage every time, new values each time, so a
        cache keyed on the input's address serves stale answers. Replies each call's time by the Clock."""
        if self.m_model is None:
            raise Failure("crash", "call before a model was loaded")
        if msg.get("dry") and self.m_candidate is not None:
            raise Failure("crash", "a dry call after the candidate was loaded")
        layouts = msg["layouts"] if "layouts" in msg else [msg["layout"]]
        if not isinstance(layouts, list) or not 1 <= len(layouts) <= MAX_BATCH:
            raise LayoutError("a batch of %r calls" % (len(layouts) if isinstance(layouts, list) else layouts))
        model = _dry_forward(msg.get("dry_out"), self.m_device) if msg.get("dry") else self.m_model
        self.m_phase = msg.get("phase", self.m_phase)
        check_side = bool(msg.get("check_side_stream")) and self.m_device.type == "cuda"
        self.m_last = None
        cuda = self.m_device.type == "cuda"
        side = []

        def after_end(out):
            if check_side:
                torch.cuda.current_stream().synchronize()
                side.append([_snapshot(x) for x in flatten(out)])

        times, flats, ins = [], [], []
        with torch.no_grad():
            if cuda:
                torch.cuda.reset_peak_memory_stats()
                before = torch.cuda.memory_allocated()
            for k, layout in enumerate(layouts):
                inputs = self._own(k, self.m_arena.read(layout))
                strict_fp32()
                seed_all(int(msg["seed"]))
                ms, out = self.m_clock.span(lambda: model(*inputs), after_end, inputs)
                times.append(ms)
                flats.append(flatten(out))
                ins.append(inputs)
                del out
            peak = torch.cuda.max_memory_allocated() - before if cuda else -1
        if side and not all(_equal_nan(a, _snapshot(b)) for a, b in zip(side[0], flats[0])):
            self.m_obs["side_stream"].append(
                "%s: output changed after a device-wide synchronize; it was not complete when the current "
                "stream was" % msg.get("what", "call"))
        self.m_last = flats
        self.m_lastInputs = ins
        self._note_tf32()
        return {"ok": True, "ms": times if "layouts" in msg else times[0], "peak": peak}

    def _own(self, k, views):
        """On a CPU the forward reads this process's own copy of the inputs (the same tensors every call,
        new values each time), as the judge's baselines read the judge's own: a forward on memory another
        core just wrote measures 15-30% slower than on memory this core copied, whoever's code it is. On
        a GPU the forward reads the arena itself (device memory, flushed from L2 for everyone)."""
        if self.m_device.type == "cuda":
            return views
        own = self.m_own
        old = own.get(k)
        if old is not None and len(old) == len(views) and all(
                isinstance(a, torch.Tensor) == isinstance(b, torch.Tensor)
                and (not isinstance(a, torch.Tensor) or (a.shape == b.shape and a.dtype == b.dtype))
                for a, b in zip(old, views)):
            own[k] = [a.copy_(b) if isinstance(a, torch.Tensor) else b for a, b in zip(old, views)]
        else:
            own[k] = [b.clone() if isinstance(b, torch.Tensor) else b for b in views]
        return own[k]

    def warm(self, msg):
        """Untimed calls on what this process holds now (the previous call's inputs: the judge writes the next
        ones afterwards, the runner frozen), so the timed call finds torch's code paths warm in this process
        as the judge's baseline finds them in its own (CPU; see timing.cpu_warm_calls)."""
        if self.m_model is None:
            raise Failure("crash", "warm-up before a model was loaded")
        inputs = self.m_own.get(0) if self.m_device.type != "cuda" else None
        inputs = inputs or self.m_arena.read(msg["layout"])
        with torch.no_grad():
            for _ in range(max(0, min(int(msg.get("n", 0)), 8))):
                self.m_model(*inputs)
        self.m_last = None
        return {"ok": True}

    def deliver(self, msg):
        """The last calls' outputs, each copied into the arena from its base (`bases`, one per call) after a
        device-wide synchronize: whatever stream the candidate used, the copy sees finished outputs. On a
        CPU (`inputs_back`) the copies of the inputs the forwards read go back where the judge wrote them,
        for its mutation check (`in_bases`)."""
        if self.m_last is None:
            raise Failure("runtime_error", "no output to deliver")
        bases = msg["bases"] if "bases" in msg else [msg.get("base", 0)]
        if not isinstance(bases, list) or len(bases) != len(self.m_last):
            raise LayoutError("%r bases for %d calls" % (bases, len(self.m_last)))
        if self.m_device.type == "cuda":
            _synchronize()
        layouts = []
        for c, (flat, inputs, base) in enumerate(zip(self.m_last, self.m_lastInputs, bases)):
            values = []
            for k, v in enumerate(flat):
                if isinstance(v, torch.Tensor) or v is None or isinstance(v, (bool, int, float, str)):
                    values.append(v)
                else:
                    raise Failure("shape_mismatch", "output %d is a %s, not a tensor" % (k, type(v).__name__))
            in_ptrs = {storage_ptr(x): i for i, x in enumerate(inputs) if isinstance(x, torch.Tensor)}
            for k, v in enumerate(values):
                if isinstance(v, torch.Tensor) and storage_ptr(v) in in_ptrs and storage_ptr(v) != 0:
                    self.m_obs["alias"].append("%s: output %d shares storage with input %d"
                                               % (msg.get("what", "call"), k, in_ptrs[storage_ptr(v)]))
            try:
                layouts.append(self.m_arena.write(values, base=int(base)))
            except LayoutError as e:
                raise Failure("shape_mismatch", "the outputs do not fit where the reference's go: %s" % e)
        if msg.get("inputs_back") and self.m_device.type != "cuda":
            for inputs, base in zip(self.m_lastInputs, msg.get("in_bases") or [0]):
                self.m_arena.write(list(inputs), base=int(base))
        if self.m_device.type == "cuda":
            _synchronize()
        self.m_last = None
        return {"ok": True, "layouts": layouts} if "bases" in msg else {"ok": True, "layout": layouts[0]}

    def report(self, _msg):
        patched = [n for n, fn in timers_snapshot().items() if self.m_timers and self.m_timers.get(n) is not fn]
        extra = [t for t in threading.enumerate() if self.m_threads is not None and t.ident not in self.m_threads
                 and t.is_alive()]
        return {"ok": True, "timers_patched": patched,
                "threads": ["thread %r (daemon=%s)" % (t.name, t.daemon) for t in extra],
                "tf32_changed": self.m_obs["tf32_changed"], "side_stream": self.m_obs["side_stream"][:5],
                "alias": self.m_obs["alias"][:5],
                "max_reserved": int(torch.cuda.max_memory_reserved()) if self.m_device.type == "cuda" else -1}

    def _note_tf32(self):
        if self.m_tf32 is not None and tf32_flags() != self.m_tf32:
            self.m_obs["tf32_changed"] = True

    # ---- loop ------------------------------------------------------------------------------------
    def serve(self):
        handlers = {"arenas": self.arenas, "calibrate": self.calibrate, "setup": self.setup, "call": self.call,
                    "warm": self.warm, "deliver": self.deliver, "report": self.report, "ping": lambda m: {"ok": True}}
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
            collecting = gc.isenabled()
            if cmd == "call":
                gc.disable()  # the judge's frame around a call holds no collection of this process's objects
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
                if self.m_calibrating:
                    # The task's own code failed here: the harness's problem, never the candidate's.
                    reply = {"fail": {"status": "internal_error", "reason": "the task's own code failed in the "
                                      "candidate's process: %s: %s" % (type(e).__name__, one_line(e))}}
                else:
                    st, why = classify(e, self.m_phase, self.m_candidate, needs_gpu=self.m_needsGpu,
                                       on_gpu=self.m_device.type == "cuda")
                    reply = {"fail": {"status": st, "reason": why}}
            self.m_wire.send(reply)
            if collecting and not gc.isenabled():
                gc.enable()


def _dry_forward(shapes, device):
    """The dry calls' forward (calibration only): outputs of the reference's shapes, left unwritten (no work
    to speak of; their delivery copies as many bytes as a real call's)."""
    from .arena import dtype_of

    specs = [(tuple(int(d) for d in s["shape"]), dtype_of(s["dtype"])) for s in (shapes or [])]

    def forward(*_xs):
        return [torch.empty(shape, dtype=dt, device=device) for shape, dt in specs]

    return forward


def main(fd):
    import socket

    # A candidate's print() and any chatter land in the log, never on the judge's channel.
    os.dup2(2, 1)
    sys.stdout = os.fdopen(1, "w", buffering=1, closefd=False)
    sock = socket.socket(fileno=fd)
    w = wire_mod.Wire(sock)
    timing.steady_allocator()
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
