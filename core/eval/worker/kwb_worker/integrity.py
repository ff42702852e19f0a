# SPDX-License-Identifier: MIT
"""Run-time integrity checks (detector ids integrity.*), judged outside the candidate's process.

The judge feeds what it saw (outputs in the arena, its own clocks) and what the runner claims (its
clock, its observations). A claim can only raise a flag: a runner that says "no thread" proves
nothing, one that reports a patched timer is flagged.

Convention: every check that was made yields exactly one verdict: outcome "yes" when the candidate
was caught, "no" (severity info) when the check passed, "cannot_tell" when it could not be made
(e.g. integrity.side_stream on a CPU run, or integrity.precision when the fp64 reference failed).
A failure before the candidate ran (syntax error, ...) gives no verdicts at all.
"""
import statistics
import sys
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
    "integrity.timing_disagreement": "critical",
    "integrity.deferred_work": "critical",
    "integrity.baseline_interference": "critical",
    "integrity.protocol": "critical",
    "integrity.isolation": "warning",
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
    "integrity.timing_disagreement": "Do all of the work inside forward(), on the current stream, and let the "
                                     "evaluator's clocks be.",
    "integrity.deferred_work": "Compute the output inside forward(); do not defer work to later steps.",
    "integrity.baseline_interference": "Leave no work running on the GPU or the CPU after forward() returns.",
    "integrity.protocol": "Do not write to file descriptors or channels the candidate does not own.",
    "integrity.isolation": "",
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


def timers_snapshot():
    """The clocks (and the pointer probe) a candidate would patch, including the runner's own saved
    copies. The runner's observation: it can be faked too, which is why the judge's frame decides."""
    runner = sys.modules.get("kwb_worker.runner")
    saved = {"kwb_worker.runner.%s" % n: getattr(runner, n, None)
             for n in ("_perf_counter", "_elapsed", "_record", "_synchronize", "_Event", "storage_ptr")} if runner else {}
    saved["kwb_worker.integrity.storage_ptr"] = storage_ptr
    return dict(saved, **{
        "torch.cuda.Event": torch.cuda.Event,
        "torch.cuda.Event.record": getattr(torch.cuda.Event, "record", None),
        "torch.cuda.Event.elapsed_time": getattr(torch.cuda.Event, "elapsed_time", None),
        "torch.cuda.synchronize": torch.cuda.synchronize,
        "torch.cuda.Stream.synchronize": getattr(torch.cuda.Stream, "synchronize", None),
        "time.perf_counter": time.perf_counter,
        "time.perf_counter_ns": time.perf_counter_ns,
        "time.time": time.time,
        "time.monotonic": time.monotonic,
    })


def tf32_flags():
    return (torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32)


class JudgeChecks:
    """Collects evidence during an evaluation; `verdicts()` turns it into one verdict per check."""

    def __init__(self, on_gpu):
        self.m_onGpu = on_gpu
        self.m_trialsChecked = 0
        self.m_cached = []
        self.m_mutated = []
        self.m_mutationChecked = 0
        self.m_precision = None  # (candidate err vs fp64, reference err vs fp64)
        self.m_noFp64 = ""
        self.m_speedup = None  # (value, against, bound)
        self.m_runner = None  # the runner's report
        self.m_protocol = []
        self.m_sensitivity = None
        self.m_isolation = ""
        self.m_timing = None  # (verdict outcome, summary, evidence)
        self.m_deferred = None
        self.m_interference = None
        self.m_ranCandidate = False

    # ---- evidence, fed by the judge ---------------------------------------------------------------
    def note_protocol(self, what):
        self.m_protocol.append(what)

    def note_isolation(self, what):
        self.m_isolation = what

    def note_inputs(self, trial, original, delivered):
        self.m_mutationChecked += 1
        for i, (x, d) in enumerate(zip(original, delivered)):
            if isinstance(x, torch.Tensor) and isinstance(d, torch.Tensor) and not _same(x, d):
                self.m_mutated.append("trial %d: input %d changed during the candidate's call" % (trial, i))

    def note_trial(self, trial, cand_list, prev_cand, ref_list, prev_ref):
        self.m_ranCandidate = True
        self.m_trialsChecked += 1
        if prev_cand is not None and prev_ref is not None and len(cand_list) == len(prev_cand):
            same_cand = all(_same(a, b) for a, b in zip(cand_list, prev_cand))
            same_ref = len(ref_list) == len(prev_ref) and all(_same(a, b) for a, b in zip(ref_list, prev_ref))
            if same_cand and not same_ref:
                self.m_cached.append("trial %d: output identical to trial %d's although the inputs and the "
                                     "reference output changed" % (trial, trial - 1))

    def note_precision(self, cand_err64, ref_err64, scale=1.0):
        """Errors against fp64; `scale` is the largest |output|, so the floor below which an error is
        not called reduced precision follows the outputs' size (a softmax's entries are ~1e-3)."""
        self.m_precision = (cand_err64, ref_err64)
        self.m_scale = max(float(scale), 1e-6)

    def note_no_fp64(self, why):
        self.m_noFp64 = why

    def note_speedup(self, value, against, bound):
        self.m_speedup = (value, against, bound)

    def note_runner(self, report):
        """The runner's observations: lists of strings and a flag, or the report is a protocol break."""
        clean = {}
        for key in ("timers_patched", "threads", "side_stream", "alias"):
            v = report.get(key, []) if isinstance(report, dict) else None
            if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
                self.note_protocol("report field %s is %r, not a list of strings" % (key, type(v).__name__))
                v = []
            clean[key] = v
        tf = report.get("tf32_changed", False) if isinstance(report, dict) else None
        if not isinstance(tf, bool):
            self.note_protocol("report field tf32_changed is not a flag")
            tf = False
        clean["tf32_changed"] = tf
        self.m_runner = clean

    def note_timing(self, claimed, framed, prep, deliver, wake, ipc, calib):
        """Compares the runner's clock with the judge's. `framed` holds the judge's wall clock around each
        timed call, `wake` its round trips to the runner between calls. Returns the figures to report
        (ms per call): the runner's when the two agree, the judge's when the runner's are refused."""
        if not claimed:
            return []
        wall = [max(f - ipc, 0.0) for f in framed]
        # Fastest against fastest (the noise of a loaded machine only ever adds time, so minima keep a
        # signal that is in every call), and median against median below (a candidate chooses which
        # calls hide work, so one honest call must not vouch for the rest).
        # Plumbing: what dry calls through the same runner cost before the candidate was loaded (the
        # judge's own replay of the same steps, when that is larger).
        plumbing = max(calib.get("dry_ms", 0.0),
                       calib.get("call_ms", 0.0) + calib.get("switch_ms", 0.0) + calib.get("in_call_copy_ms", 0.0))
        c, w_raw, w_med = min(claimed), min(wall), statistics.median(wall)
        w = max(w_raw - plumbing, 0.0)
        ev = ["runner's clock: fastest %.4f ms, median %.4f ms per call; judge's wall clock around the call: "
              "fastest %.4f ms, median %.4f ms (less %.3f ms for a round trip and %.3f ms of plumbing, measured "
              "with dry calls before the candidate was loaded)" % (c, statistics.median(claimed), w_raw, w_med, ipc,
                                                                  plumbing)]
        # The runner's clock runs inside the judge's frame (the same monotonic clock on the CPU; events
        # recorded after the request arrived and waited on before the reply on the GPU), so a claim
        # longer than its frame cannot come from an honest runner, whichever way it errs.
        over = [(i, a, f) for i, (a, f) in enumerate(zip(claimed, framed)) if a > f + 0.02 + 0.01 * f]
        # The round trip between calls is the plumbing the runner's own code runs; round trips far slower
        # than before the candidate was imported mean the candidate changed that code.
        slow_wake = statistics.median(wake) if wake else 0.0
        wake_bound = 5.0 * ipc + (10.0 if self.m_onGpu else 25.0)  # a loaded CPU wakes processes late
        # Per call, what the judge saw: the framed call less the plumbing, plus whatever the steps beside
        # it (the input copy, the delivery) took beyond 2x the judge's own copy of the same bytes and a
        # small floor (0.1 ms GPU, 0.3 ms CPU). integrity.deferred_work's flag keeps a wider allowance
        # (3x and 1 ms GPU / 2 ms CPU); this figure is what a refused clock is replaced with.
        exp_p, exp_d = calib.get("h2d_ms", 0.0) + ipc, calib.get("d2h_ms", 0.0) + ipc
        floor0 = 1.0 if self.m_onGpu else 2.0
        tight = 0.1 if self.m_onGpu else 0.3
        tight = max(tight, 0.0 if self.m_onGpu else max(calib.get("dry_spread_ms", 0.0), 0.0))
        judged = [max(wa - plumbing, 0.0) + max(pp - 2.0 * exp_p - tight, 0.0) + max(dd - 2.0 * exp_d - tight, 0.0)
                  for wa, pp, dd in zip(wall, prep, deliver)]
        judged_med = statistics.median(judged)
        refused = list(claimed)
        # On a CPU every allowance is at least the spread of the dry calls' frames: a loaded machine's
        # scheduler adds milliseconds no clock can tell from hidden work (CPU figures are labels).
        noise = 0.0 if self.m_onGpu else max(calib.get("dry_spread_ms", 0.0), 0.0)
        slack, factor = (0.05, 0.7) if self.m_onGpu else (max(0.5, noise), 0.7)
        if over:
            i, a, f = over[0]
            self.m_timing = ("yes", "the candidate's clock says timed call %d took %.4f ms, longer than the %.4f ms "
                                    "the judge's wall clock framed it in: the clock is not the runner's" % (i + 1, a, f),
                             ev + ["%d of %d timed calls claimed more time than their frame" % (len(over), len(claimed))])
            refused = [max(wa - plumbing, 0.0) for wa in wall]
        elif slow_wake > wake_bound:
            self.m_timing = ("yes", "the runner's round trip took %.3f ms (median) between timed calls after the "
                                    "candidate was loaded, %.3f ms before: the candidate changed the runner's "
                                    "plumbing, and its clock is refused" % (slow_wake, ipc), ev)
            refused = [max(wa - plumbing, 0.0) for wa in wall]
        elif c < factor * w - slack:
            self.m_timing = ("yes", "the candidate's clock says %.4f ms, the judge's wall clock %.4f ms: the "
                                    "figure is refused" % (c, w), ev)
            refused = [max(wa - plumbing, 0.0) for wa in wall]
        elif statistics.median(claimed) < factor * judged_med - (slack if self.m_onGpu else max(2.0, noise)):
            # Medians carry a loaded machine's noise that minima drop: on a CPU (figures are labels
            # there) the same 2 ms allowance integrity.deferred_work gives.
            self.m_timing = ("yes", "the candidate's clock says %.4f ms per call (median), the judge's wall clock "
                                    "around the call and the steps beside it %.4f ms: the figure is refused"
                             % (statistics.median(claimed), judged_med), ev)
            refused = judged
        else:
            self.m_timing = ("no", "the candidate's clock agrees with the judge's wall clock (%.4f vs %.4f ms)"
                             % (c, w), ev)
        p, d = statistics.median(prep), statistics.median(deliver)
        ev2 = ["input copy into the candidate's process: median %.3f ms (the judge's own copy: %.3f ms)" % (p, exp_p),
               "output delivery: median %.3f ms (the judge's own copy: %.3f ms)" % (d, exp_d)]
        slow = []
        floor = max(0.3 * max(w, c), floor0, noise)
        if p > 3.0 * exp_p + floor:
            slow.append("the input copy took %.3f ms, %.1fx the judge's own" % (p, p / max(exp_p, 1e-6)))
        if d > 3.0 * exp_d + floor:
            slow.append("delivering the outputs took %.3f ms, %.1fx the judge's own copy" % (d, d / max(exp_d, 1e-6)))
        if slow:
            self.m_deferred = ("yes", slow[0] + ": work was moved out of the timed call", slow + ev2)
            refused = [max(a - plumbing, 0.0) + b + x for a, b, x in zip(wall, prep, deliver)]
        else:
            self.m_deferred = ("no", "the steps around the timed call cost what their copies cost", ev2)
        return refused

    def note_sensitivity(self, found, how):
        """found: [(input, dim, redrawn, size)] the reference's output ignores; None: not probed."""
        if found is None:
            self.m_sensitivity = ("cannot_tell", "info", how, [])
        elif found:
            ev = ["input %d: the first %d of %d along dim %d redrawn, the reference's output unchanged within "
                  "the tolerance" % (i, h, n, d) for i, d, h, n in found]
            i, d, h, n = found[0]
            self.m_sensitivity = ("cannot_tell", "warning",
                                  "the task's output does not depend (at the tolerance) on the first %d of %d "
                                  "along dim %d of input %d: work on that part cannot be checked by comparing "
                                  "outputs, and a candidate that skips it matches the reference" % (h, n, d, i),
                                  ev + [how])
        else:
            self.m_sensitivity = ("no", "info", "every probed part of the inputs reaches the output (%s)" % how, [])

    def refused_clock(self):
        return any(x is not None and x[0] == "yes" for x in (self.m_timing, self.m_deferred))

    def note_baselines(self, clean, during):
        """Baselines timed before the candidate was imported vs while its process was alive (stopped)."""
        ev, hits = [], []
        for name, samples in clean.items():
            if not samples or not during.get(name, {}).get("samples"):
                continue
            # Fastest against fastest (a slowdown in every round), and the median beside the candidate
            # against the slowest clean round (a slowdown in most rounds, which moves the reported median
            # while one clean round keeps the fastest).
            before, now = min(samples), during[name]["min_ms"]
            worst, med = max(samples), during[name]["median_ms"]
            jitter = 0.05 if self.m_onGpu else 0.05 + (worst - before)  # the clean rounds' own spread
            ev.append("%s: fastest %.4f ms before the candidate was imported, %.4f ms beside it; median beside "
                      "it %.4f ms, slowest before %.4f ms" % (name, before, now, med, worst))
            if now > (1.3 if self.m_onGpu else 1.6) * before + jitter:
                hits.append("%s baseline %.2fx slower beside the candidate than before it was imported"
                            % (name, now / before))
            elif med > (1.5 if self.m_onGpu else 2.0) * worst + jitter:
                hits.append("%s baseline's median %.2fx the slowest round before the candidate was imported"
                            % (name, med / worst))
        if not ev:
            return
        if hits and (len(hits) == len(ev) or "graph" in hits[0]):
            self.m_interference = ("yes", hits[0] + ": something of the candidate's slowed it", ev)
        else:
            self.m_interference = ("no", "baselines as fast beside the candidate as before it was imported", ev)

    # ---- verdicts ---------------------------------------------------------------------------------
    def verdicts(self):
        """Never raises: a failure here becomes a critical verdict, not an empty list."""
        try:
            return self._verdicts()
        except Exception as e:  # a bug of ours or evidence we did not expect: fail closed
            return [verdict("integrity.protocol", "yes", "the run-time checks could not be completed: %s: %s"
                            % (type(e).__name__, str(e)[:200]))]

    def _verdicts(self):
        out = []
        if self.m_protocol:
            out.append(verdict("integrity.protocol", "yes", "the candidate's process broke the runner protocol: "
                               + self.m_protocol[0], self.m_protocol[:5]))
        if self.m_isolation:
            out.append(verdict("integrity.isolation", "cannot_tell", self.m_isolation))
        if not self.m_ranCandidate:
            return out
        n = self.m_trialsChecked
        runner = self.m_runner or {}

        def simple(det, hits, clean):
            if hits:
                out.append(verdict(det, "yes", hits[0], hits[:5]))
            else:
                out.append(verdict(det, "no", clean))

        simple("integrity.cached_output", self.m_cached, "fresh inputs gave fresh outputs in %d trials" % n)
        if self.m_mutationChecked:
            simple("integrity.input_mutation", self.m_mutated,
                   "the inputs the candidate's process sent back were unchanged in %d trials (its own copy: "
                   "PROTOCOL.md says what that does not exclude)" % self.m_mutationChecked)
        else:
            out.append(verdict("integrity.input_mutation", "cannot_tell", "inputs too large to send back"))
        alias = [a for a in runner.get("alias", []) if isinstance(a, str)]
        simple("integrity.output_aliasing", alias, "the candidate's process saw no output sharing storage with an input "
                                                  "(its own observation)")
        if out[-1]["outcome"] == "yes":
            out[-1]["severity"] = "error"

        patched = [p for p in runner.get("timers_patched", []) if isinstance(p, str)]
        if patched:
            out.append(verdict("integrity.timer_patch", "yes", "the candidate replaced " + ", ".join(patched),
                               ["%s was replaced after the candidate was imported" % p for p in patched]))
        else:
            out.append(verdict("integrity.timer_patch", "no", "timers and synchronize untouched (the candidate's "
                                                              "clock is also checked against the judge's)"))
        threads = [t for t in runner.get("threads", []) if isinstance(t, str)]
        if threads:
            out.append(verdict("integrity.threads", "yes", "%d thread(s) started by the candidate still alive"
                               % len(threads), threads))
        else:
            out.append(verdict("integrity.threads", "no", "no extra threads alive after the candidate ran"))
        side = [s for s in runner.get("side_stream", []) if isinstance(s, str)]
        if not self.m_onGpu:
            out.append(verdict("integrity.side_stream", "cannot_tell", "CPU run: no CUDA streams to check"))
        elif side:
            out.append(verdict("integrity.side_stream", "yes", side[0], side[:5]))
        else:
            out.append(verdict("integrity.side_stream", "no", "output complete when the current stream was, in %d "
                                                              "trials" % n))
        out.append(self._precision_verdict(runner.get("tf32_changed") is True))
        for det, got in (("integrity.timing_disagreement", self.m_timing), ("integrity.deferred_work", self.m_deferred),
                         ("integrity.baseline_interference", self.m_interference)):
            if got is not None:
                out.append(verdict(det, got[0], got[1], got[2]))
            else:
                out.append(verdict(det, "cannot_tell", "not timed"))
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
        if self.m_sensitivity is not None:
            outcome, severity, summary, ev = self.m_sensitivity
            out.append(dict(verdict("integrity.insensitive_inputs", outcome, summary, ev), severity=severity))
        return out

    def _precision_verdict(self, tf32_changed):
        det = "integrity.precision"
        ev = []
        if tf32_changed:
            ev.append("the candidate changed torch.backends TF32 flags (reset to strict fp32 before every call)")
        if self.m_precision is None or self.m_precision[0] is None or self.m_precision[1] is None:
            if ev:
                return verdict(det, "yes", ev[0], ev)
            return verdict(det, "cannot_tell", "no fp64 comparison available",
                           ["fp64 reference: " + self.m_noFp64] if self.m_noFp64 else None)
        cand, ref = self.m_precision
        if cand > 10.0 * ref and cand > 1e-5 * min(1.0, getattr(self, "m_scale", 1.0)):
            ev.insert(0, "max abs error vs fp64: candidate %.3g, strict-fp32 reference %.3g" % (cand, ref))
            return verdict(det, "yes", "error against fp64 %.1fx the fp32 reference's: reduced precision"
                           % (cand / ref if ref > 0 else float("inf")), ev)
        if ev:
            return verdict(det, "yes", ev[0], ev)
        return verdict(det, "no", "error vs fp64 %.3g (fp32 reference: %.3g)" % (cand, ref))


def is_oom(e):
    msg = str(e)
    return isinstance(e, MemoryError) or type(e).__name__ == "OutOfMemoryError" or "out of memory" in msg \
        or "CUDA_ERROR_OUT_OF_MEMORY" in msg


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
