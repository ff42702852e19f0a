# SPDX-License-Identifier: MIT
"""Run-time integrity checks (detector ids integrity.*), made while the candidate runs.

Convention: every check that was made yields exactly one verdict: outcome "yes" when the candidate
was caught, "no" (severity info) when the check passed, "cannot_tell" when it could not be made
(e.g. integrity.side_stream on a CPU run, or integrity.precision when the fp64 reference failed).
A failure before the candidate ran (syntax error, ...) gives no verdicts at all.
"""
import threading
import time

import torch

SEVERITY = {
    "integrity.cached_output": "critical",
    "integrity.output_aliasing": "critical",
    "integrity.input_mutation": "error",
    "integrity.precision": "error",
    "integrity.timer_patch": "critical",
    "integrity.threads": "warning",
    "integrity.side_stream": "error",
    "integrity.implausible_speedup": "error",
}

FIXES = {
    "integrity.cached_output": "Compute the output from the inputs on every call; do not cache results across calls.",
    "integrity.output_aliasing": "Allocate the output and write every element of it; never return an input or memory you did not write.",
    "integrity.input_mutation": "Do not modify the input tensors in place; write results to a new tensor.",
    "integrity.precision": "Keep fp32 arithmetic (no fp16/bf16/TF32 math) where the task is fp32.",
    "integrity.timer_patch": "Do not replace torch.cuda.Event, torch.cuda.synchronize or time functions.",
    "integrity.threads": "Do all work inside forward() on the calling thread; do not start threads.",
    "integrity.side_stream": "Launch work on the current CUDA stream (or make it wait for side streams before returning).",
    "integrity.implausible_speedup": "",
}


def verdict(detector, outcome, summary, evidence=None, severity=None):
    """A Verdict dict (PROTOCOL.md). Clean outcomes are severity info."""
    if outcome != "yes":
        severity = "info"
    return {"detector": detector, "outcome": outcome, "severity": severity or SEVERITY.get(detector, "error"),
            "summary": summary,
            "evidence": [{"first_line": 0, "last_line": 0, "text": e} for e in (evidence or [])],
            "suggested_fix": FIXES.get(detector, "") if outcome == "yes" else ""}


def storage_ptr(t):
    try:
        return t.untyped_storage().data_ptr()
    except AttributeError:  # torch 1.x
        return t.storage().data_ptr()


def _timers():
    return {
        "torch.cuda.Event": torch.cuda.Event,
        "torch.cuda.Event.record": getattr(torch.cuda.Event, "record", None),
        "torch.cuda.Event.elapsed_time": getattr(torch.cuda.Event, "elapsed_time", None),
        "torch.cuda.synchronize": torch.cuda.synchronize,
        "torch.cuda.Stream.synchronize": getattr(torch.cuda.Stream, "synchronize", None),
        "time.perf_counter": time.perf_counter,
        "time.perf_counter_ns": time.perf_counter_ns,
        "time.time": time.time,
        "time.monotonic": time.monotonic,
    }


def _tf32_flags():
    return (torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32)


class IntegrityChecks:
    """Collects evidence during an evaluation; `verdicts()` turns it into one verdict per check.

    Create it before the candidate is imported: it snapshots the timers, threads and TF32 flags."""

    def __init__(self, on_gpu):
        self.m_onGpu = on_gpu
        self.m_timers = _timers()
        self.m_threads = {t.ident for t in threading.enumerate()}
        self.m_tf32 = _tf32_flags()
        self.m_trialsChecked = 0
        self.m_cached = []
        self.m_mutated = []
        self.m_aliasInput = []
        self.m_aliasFreed = []
        self.m_sideStream = []
        self.m_sideStreamChecked = 0
        self.m_tf32Changed = False
        self.m_precision = None  # (candidate err vs fp64, reference err vs fp64)
        self.m_noFp64 = ""
        self.m_speedup = None  # (value, against, bound)
        self.m_ranCandidate = False

    # ---- evidence, fed by the evaluator -------------------------------------------------------
    def note_tf32(self):
        if _tf32_flags() != self.m_tf32:
            self.m_tf32Changed = True

    def note_trial(self, trial, cand_list, prev_cand, ref_list, prev_ref, inputs, clones, input_ptrs,
                   freed_ref_ptrs, trial_has_nan):
        self.m_ranCandidate = True
        self.m_trialsChecked += 1
        for i, (x, c) in enumerate(zip(inputs, clones)):
            if isinstance(x, torch.Tensor) and not _same(x, c):
                self.m_mutated.append("trial %d: input %d changed during the candidate's call" % (trial, i))
        for k, out in enumerate(cand_list):
            if not isinstance(out, torch.Tensor):
                continue
            p = storage_ptr(out)
            if p != 0 and p in input_ptrs:
                self.m_aliasInput.append("trial %d: output %d shares storage with input %d"
                                         % (trial, k, input_ptrs[p]))
            if p != 0 and p in freed_ref_ptrs and trial_has_nan:
                self.m_aliasFreed.append("trial %d: output %d is the freed reference output's memory, "
                                         "left unwritten (it still holds the NaN the evaluator wrote)" % (trial, k))
        if prev_cand is not None and prev_ref is not None and len(cand_list) == len(prev_cand):
            same_cand = all(_same(a, b) for a, b in zip(cand_list, prev_cand))
            same_ref = len(ref_list) == len(prev_ref) and all(_same(a, b) for a, b in zip(ref_list, prev_ref))
            if same_cand and not same_ref:
                self.m_cached.append("trial %d: output identical to trial %d's although the inputs and the "
                                     "reference output changed" % (trial, trial - 1))

    def note_side_stream(self, trial, differs):
        self.m_sideStreamChecked += 1
        if differs:
            self.m_sideStream.append("trial %d: output changed after a device-wide synchronize; it was not "
                                     "complete when the current stream was" % trial)

    def note_precision(self, cand_err64, ref_err64):
        self.m_precision = (cand_err64, ref_err64)

    def note_no_fp64(self, why):
        self.m_noFp64 = why

    def note_speedup(self, value, against, bound):
        self.m_speedup = (value, against, bound)

    # ---- verdicts -----------------------------------------------------------------------------
    def verdicts(self):
        if not self.m_ranCandidate:
            return []
        out = []
        n = self.m_trialsChecked

        def simple(det, hits, clean):
            if hits:
                out.append(verdict(det, "yes", hits[0], hits[:5]))
            else:
                out.append(verdict(det, "no", clean))

        simple("integrity.cached_output", self.m_cached, "fresh inputs gave fresh outputs in %d trials" % n)
        simple("integrity.input_mutation", self.m_mutated, "inputs unchanged by the candidate in %d trials" % n)
        simple("integrity.output_aliasing", self.m_aliasFreed + self.m_aliasInput,
               "outputs share no storage with inputs or freed reference memory")
        # Severity: returning an input is an error, returning unwritten reference memory critical.
        if out[-1]["outcome"] == "yes" and not self.m_aliasFreed:
            out[-1]["severity"] = "error"

        patched = [name for name, fn in _timers().items() if self.m_timers.get(name) is not fn]
        if patched:
            out.append(verdict("integrity.timer_patch", "yes", "the candidate replaced " + ", ".join(patched),
                               ["%s was replaced after the candidate was imported" % p for p in patched]))
        else:
            out.append(verdict("integrity.timer_patch", "no", "timers and synchronize untouched"))

        extra = [t for t in threading.enumerate() if t.ident not in self.m_threads and t.is_alive()]
        if extra:
            out.append(verdict("integrity.threads", "yes",
                               "%d thread(s) started by the candidate still alive" % len(extra),
                               ["thread %r (daemon=%s)" % (t.name, t.daemon) for t in extra]))
        else:
            out.append(verdict("integrity.threads", "no", "no extra threads alive after the candidate ran"))

        if not self.m_onGpu:
            out.append(verdict("integrity.side_stream", "cannot_tell", "CPU run: no CUDA streams to check"))
        elif self.m_sideStream:
            out.append(verdict("integrity.side_stream", "yes", self.m_sideStream[0], self.m_sideStream[:5]))
        else:
            out.append(verdict("integrity.side_stream", "no",
                               "output complete when the current stream was, in %d trials" % self.m_sideStreamChecked))

        out.append(self._precision_verdict())

        if self.m_speedup is None:
            out.append(verdict("integrity.implausible_speedup", "cannot_tell", "not timed"))
        else:
            value, against, bound = self.m_speedup
            if value > bound:
                out.append(verdict("integrity.implausible_speedup", "yes",
                                   "%.1fx faster than the %s baseline, above the plausible %.0fx: review it"
                                   % (value, against, bound)))
            else:
                out.append(verdict("integrity.implausible_speedup", "no",
                                   "%.2fx against the %s baseline (bound %.0fx)" % (value, against, bound)))
        return out

    def _precision_verdict(self):
        det = "integrity.precision"
        ev = []
        if self.m_tf32Changed:
            ev.append("the candidate changed torch.backends TF32 flags (reset to strict fp32 before every call)")
        if self.m_precision is None or self.m_precision[0] is None or self.m_precision[1] is None:
            if ev:
                return verdict(det, "yes", ev[0], ev)
            return verdict(det, "cannot_tell", "no fp64 comparison available",
                           ["fp64 reference: " + self.m_noFp64] if self.m_noFp64 else None)
        cand, ref = self.m_precision
        if cand > 10.0 * ref and cand > 1e-5:
            ev.insert(0, "max abs error vs fp64: candidate %.3g, strict-fp32 reference %.3g" % (cand, ref))
            return verdict(det, "yes", "error against fp64 %.1fx the fp32 reference's: reduced precision"
                           % (cand / ref if ref > 0 else float("inf")), ev)
        if ev:
            return verdict(det, "yes", ev[0], ev)
        return verdict(det, "no", "error vs fp64 %.3g (fp32 reference: %.3g)" % (cand, ref))


def _same(a, b):
    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
        if a.shape != b.shape or a.dtype != b.dtype:
            return False
        if a.device != b.device:
            b = b.to(a.device)
        if a.is_floating_point() or a.is_complex():
            return bool(torch.equal(a, b) or torch.equal(torch.isnan(a), torch.isnan(b))
                        and torch.equal(torch.nan_to_num(a), torch.nan_to_num(b)))
        return bool(torch.equal(a, b))
    try:
        return bool(a == b)
    except Exception:
        return a is b
