# SPDX-License-Identifier: MIT
"""How a forward call is timed (Clock), statistics, CUDA-graph capture.

GPU: CUDA events on the current stream with a device synchronize and an L2 flush before each call.
CPU: time.perf_counter. The clocks are taken at import time of this module, before any candidate is
imported, so a candidate that replaces torch.cuda.Event or time.perf_counter in the judge's process
(it never runs there) or in the runner's (its claims are then checked against the judge's frame)
changes nothing the judge reports as its own.
"""
import gc
import math
import statistics
import time

import torch

_perf_counter = time.perf_counter
_Event = torch.cuda.Event
_record = torch.cuda.Event.record  # methods too: a candidate may patch the class, not the name
_elapsed = torch.cuda.Event.elapsed_time
_synchronize = torch.cuda.synchronize

L2_FLUSH_BYTES = 256 * 1024 * 1024


def stats(samples_ms):
    """The LatencyStats dict of PROTOCOL.md for a list of milliseconds."""
    n = len(samples_ms)
    if n == 0:
        return {"median_ms": None, "mean_ms": None, "std_ms": None, "min_ms": None, "max_ms": None,
                "cv": None, "samples": 0}
    mean = statistics.fmean(samples_ms)
    std = statistics.stdev(samples_ms) if n > 1 else 0.0
    return {"median_ms": statistics.median(samples_ms), "mean_ms": mean, "std_ms": std,
            "min_ms": min(samples_ms), "max_ms": max(samples_ms),
            "cv": std / mean if mean > 0 else math.nan, "samples": n}


class L2Flusher:
    """Writes a 256 MB buffer so no operand stays in L2 between trials (as KernelBench does)."""

    def __init__(self, device):
        self.m_buf = torch.empty(L2_FLUSH_BYTES // 4, dtype=torch.int32, device=device)

    def flush(self):
        self.m_buf.zero_()


def steady_allocator():
    """The C allocator's thresholds fixed (judge and runner alike): glibc otherwise maps and unmaps every
    buffer over its moving mmap threshold and trims the heap back to the system, so an output of a few MB
    costs a thousand page faults in one process and none in the other, depending on what each freed
    before (a 4 MB ReLU measured 0.13 ms in one, 1.3 ms in the other). Buffers up to 32 MB now come from
    the heap, and freed memory stays for the next call."""
    try:
        import ctypes

        libc = ctypes.CDLL(None)
        libc.mallopt(-3, 32 << 20)  # M_MMAP_THRESHOLD
        libc.mallopt(-1, 1 << 30)  # M_TRIM_THRESHOLD
        return True
    except (OSError, AttributeError):
        return False


def cpu_warm_calls(call_ms):
    """Untimed calls before each timed one on a CPU, for judge and runner alike: a process that slept
    while the other worked finds torch's code paths and its allocator cold, and a call of a few
    microseconds then measures that, not itself (3 calls bring a 3 us ReLU from 15 +- 5 us back to 5).
    The runner's are made on the previous inputs, before the judge writes the next ones."""
    if call_ms is None or call_ms >= 5.0:
        return 0
    return 3 if call_ms < 0.5 else 1


class Clock:
    """The one way every forward call is timed: the judge's eager and CUDA-graph baselines, the task's own
    code through the runner (calibration) and the candidate (in the runner) all go through `span`, so the
    task's own code measures the same in either process by construction.

    GPU: a device-wide synchronize, an L2 flush (which also keeps the GPU busy while the call's first
    kernel is launched, so launch latency counts alike for everyone, and absorbs the switch between two
    processes' contexts), CUDA events on the current stream around the call, a device-wide synchronize.
    CPU: the inputs read once (in the caches for everyone), perf_counter around the call."""

    def __init__(self, device):
        self.cuda = device.type == "cuda"
        self.flusher = L2Flusher(device) if self.cuda else None

    def span(self, fn, after_end=None, inputs=()):
        """(milliseconds, fn's return value). `after_end(out)` runs after the end event is recorded and
        before the device-wide synchronize (the runner's side-stream check), outside the span. On a CPU
        the `inputs` are read once first, so every call starts with its inputs in this core's caches
        whichever process wrote them."""
        collecting = gc.isenabled()
        gc.disable()  # a collection of whichever process holds more objects is not the call's time
        try:
            if self.cuda:
                _synchronize()
                self.flusher.flush()
                start, end = _Event(enable_timing=True), _Event(enable_timing=True)
                _record(start)
                out = fn()
                _record(end)
                if after_end is not None:
                    after_end(out)
                _synchronize()  # all streams, so work left on a side stream does not spill over
                return _elapsed(start, end), out
            for x in inputs:
                if isinstance(x, torch.Tensor) and x.numel():
                    x.sum()
            t0 = _perf_counter()
            out = fn()
            ms = (_perf_counter() - t0) * 1000.0
            if after_end is not None:
                after_end(out)
            return ms, out
        finally:
            if collecting:
                gc.enable()


def time_interleaved(fns, device, warmup, repeat, clock=None):
    """Times each callable in `fns` (an ordered dict name -> fn) in interleaved rounds with `Clock.span`:
    warm-up calls, one discarded round, then `repeat` rounds. Returns {name: [ms, ...]}."""
    names = list(fns)
    clock = clock or Clock(device)
    with torch.no_grad():
        for name in names:
            for _ in range(max(0, warmup)):
                fns[name]()
        if clock.cuda:
            _synchronize()
        times = {name: [] for name in names}
        for rnd in range(repeat + 1):  # round 0 is the discarded one
            for name in names:
                ms, _ = clock.span(fns[name])
                if rnd > 0:
                    times[name].append(ms)
    return times


def capture_graph(model, inputs, warmup=3):
    """Captures model(*inputs) in a torch.cuda.CUDAGraph (side-stream warm-up first, as PyTorch
    documents). Returns (replay_fn, static_output) or raises with the reason capture failed."""
    static_inputs = [x for x in inputs]
    with torch.no_grad():
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(warmup):
                model(*static_inputs)
        torch.cuda.current_stream().wait_stream(side)
        _synchronize()
        torch.cuda.empty_cache()  # the warm-up's outputs (cached for the side stream) before the graph's own
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            static_out = model(*static_inputs)
    _synchronize()
    return graph.replay, static_out, graph
