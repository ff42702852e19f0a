# SPDX-License-Identifier: MIT
"""Interleaved timing of several callables (eager reference, its CUDA graph, the candidate).

GPU: CUDA events on the current stream, warm-up, one discarded round, then N rounds; before each
timed call a device synchronize and an L2 flush. CPU: time.perf_counter. The clocks are taken at
import time of this module, before any candidate is imported, so a candidate that replaces
torch.cuda.Event or time.perf_counter cannot change the measurement.
"""
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


def time_interleaved(fns, device, warmup, repeat, on_call_error=None):
    """Times each callable in `fns` (an ordered dict name → fn) in interleaved rounds.

    Returns {name: [ms, ...]}. An exception from a callable propagates, with `on_call_error(name)`
    called first so the caller knows whose it was."""
    names = list(fns)
    cuda = device.type == "cuda"
    flusher = L2Flusher(device) if cuda else None

    def call(name):
        try:
            fns[name]()
        except BaseException:
            if on_call_error is not None:
                on_call_error(name)
            raise

    with torch.no_grad():
        for name in names:
            for _ in range(max(0, warmup)):
                call(name)
        if cuda:
            _synchronize()
        times = {name: [] for name in names}
        for rnd in range(repeat + 1):  # round 0 is the discarded one
            for name in names:
                if cuda:
                    _synchronize()
                    flusher.flush()
                    start, end = _Event(enable_timing=True), _Event(enable_timing=True)
                    _record(start)
                    call(name)
                    _record(end)
                    _synchronize()  # all streams, so work left on a side stream does not spill over
                    ms = _elapsed(start, end)
                else:
                    t0 = _perf_counter()
                    call(name)
                    ms = (_perf_counter() - t0) * 1000.0
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
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            static_out = model(*static_inputs)
    _synchronize()
    return graph.replay, static_out, graph
