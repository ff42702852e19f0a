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
    "integrity.timing_disagreement": "warning",
    "integrity.work_while_stopped": "critical",
    "integrity.baseline_interference": "critical",
    "integrity.protocol": "critical",
    "integrity.isolation": "warning",
    "integrity.lingering_gpu_work": "critical",
    "integrity.busy_machine": "warning",
    "integrity.file_watch": "critical",
}
LINGER_MS = 1.0  # a time slice of another context is ~2 ms on an H100; an idle GPU answers in ~0.02 ms

FIXES = {
    "integrity.cached_output": "Compute the output from the inputs on every call into a tensor of its own; do not cache "
                               "results across calls or write a returned output again.",
    "integrity.output_aliasing": "Allocate the output and write every element of it; never return an input or memory you did not write.",
    "integrity.input_mutation": "Do not modify the input tensors in place; write results to a new tensor.",
    "integrity.precision": "Keep fp32 arithmetic (no fp16/bf16/TF32 math) where the task is fp32.",
    "integrity.timer_patch": "Do not replace torch.cuda.Event, torch.cuda.synchronize or time functions.",
    "integrity.threads": "Do all work inside forward() on the calling thread; do not start threads.",
    "integrity.side_stream": "Launch work on the current CUDA stream (or make it wait for side streams before returning).",
    "integrity.implausible_speedup": "",
    "integrity.timing_disagreement": "Do all of the work inside forward(), on the current stream, and let the "
                                     "evaluator's clocks be.",
    "integrity.work_while_stopped": "Do all work inside forward(); start no process or thread that works between calls.",
    "integrity.baseline_interference": "Leave no work running on the GPU or the CPU after forward() returns.",
    "integrity.protocol": "Do not write to file descriptors or channels the candidate does not own.",
    "integrity.isolation": "",
    "integrity.lingering_gpu_work": "Finish all GPU work before forward() returns; launch no kernel that "
                                    "outlives the call.",
    "integrity.busy_machine": "Evaluate it again on a machine with less else running: the figure is not the "
                              "candidate's alone.",
    "integrity.file_watch": "Watch no files (inotify, fanotify): a kernel has no use for them.",
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


def _simple(det, hits, clean):
    """`det` yes with the first of `hits` (and up to five as evidence), or no with `clean`."""
    return verdict(det, "yes", hits[0], hits[:5]) if hits else verdict(det, "no", clean)


UNREPORTED = "not observed: the evaluation stopped before the candidate's process reported what it saw"


def timers_snapshot(clock_obj=None):
    """The clocks (and the pointer probe) a candidate would patch, including the runner's own saved
    copies, each with its code object (a function's `__code__` can be swapped under the same function), and
    the runner's clock object's class and own attributes (blind red team 18 moved the runner's clock onto a
    subclass and put `Clock.span` back). The runner's observation: it can be faked too, which is why the
    judge's frame decides."""
    saved = _snapshot()
    if clock_obj is not None:
        saved["the runner's clock object's class"] = type(clock_obj)
        saved["the runner's clock object's own attributes"] = tuple(sorted(vars(clock_obj)))
    return {k: (v, getattr(v, "__code__", None)) for k, v in saved.items()}


def timers_changed(before, after):
    """The names of `timers_snapshot()` entries that differ between two snapshots (another object or code)."""
    if not before:
        return []
    out = []
    for n, (v, code) in after.items():
        b = before.get(n)
        if b is None or code is not b[1] or (v is not b[0] and not (isinstance(v, tuple) and v == b[0])):
            out.append(n)
    return out


def _snapshot():
    saved = {}
    for mod, names in (("kwb_worker.runner", ("_synchronize", "storage_ptr")),
                       ("kwb_worker.timing", ("_perf_counter", "_elapsed", "_record", "_synchronize", "_Event"))):
        m = sys.modules.get(mod)
        if m is not None:
            saved.update({"%s.%s" % (mod, n): getattr(m, n, None) for n in names})
    clock = getattr(sys.modules.get("kwb_worker.timing"), "Clock", None)
    if clock is not None:
        saved["kwb_worker.timing.Clock.span"] = clock.span
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
        self.m_precision = None  # (candidate err vs fp64, reference err vs fp64), on drawn calls
        self.m_precisionFar = None  # the same on the calls furthest from the reference's outputs (note_precision_far)
        self.m_noFp64 = ""
        self.m_speedup = None  # (value, against, bound, why the baseline is unmeasurable or None)
        self.m_runner = None  # the runner's report
        self.m_protocol = []
        self.m_sensitivity = None
        self.m_isolation = ""
        self.m_timing = None  # (verdict outcome, summary, evidence)
        self.m_stopped = None
        self.m_interference = None
        self.m_ranCandidate = False
        self.m_idle = []  # the judge's tiny kernel after each of the candidate's deliveries (ms)
        self.m_idleBase = []
        self.m_busy = None  # (outcome, summary, evidence): how far other processes delayed the counted frames (CPU)
        self.m_refAliases = False  # the task's own output is a view of its input
        self.m_watches = None  # the candidate's file watches seen by the judge (note_watches); None: never looked
        self.m_watchBase = 0  # the most the reference's runner held at once (note_watches)

    def note_reference_aliases(self, yes):
        self.m_refAliases = bool(yes)

    # ---- evidence, fed by the judge ---------------------------------------------------------------
    def note_protocol(self, what):
        self.m_protocol.append(what)

    def note_isolation(self, what):
        self.m_isolation = what

    def note_watches(self, found, reference=None):
        """File watches (inotify, fanotify descriptors) the judge saw in the candidate's processes while they were
        stopped, as "pid P fd N: what" strings (None where it could not look), and those of the reference's runner
        at the same moment: the same torch and driver stack, so that what a library of theirs may hold is not the
        candidate's doing. Kept: the most of each seen at once."""
        if found is None:
            return
        if self.m_watches is None or len(found) > len(self.m_watches):
            self.m_watches = list(found)
        self.m_watchBase = max(self.m_watchBase, len(reference or []))

    def note_inputs(self, trial, original, seen, what=None):
        """The inputs as the judge wrote them into the runner's arena against what is there after the call
        (read by the judge itself, the runner stopped)."""
        self.m_mutationChecked += 1
        for i, (x, d) in enumerate(zip(original, seen)):
            if isinstance(x, torch.Tensor) and isinstance(d, torch.Tensor) and not _same(x, d):
                self.m_mutated.append("%s: input %d changed during the candidate's call"
                                      % (what or "trial %d" % trial, i))

    def note_reused(self, what):
        """A returned output written again: one lying where an earlier output still held lies, or a held output that
        changed after its batch (Lane._reused)."""
        self.m_ranCandidate = True
        if len(self.m_cached) < 5:
            self.m_cached.append(what)

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

    def note_precision_far(self, cand_err64, ref_err64):
        """Errors against fp64 on the calls chosen for being furthest from the reference's outputs: chosen so, an
        honest fp32 kernel's error there runs above the reference's more often than on a drawn call (an exp(x -
        logsumexp) softmax 4.5x on a CPU, against 1.9x drawn), so the bar is FAR_RATIO; a candidate imprecise on a
        few calls only is far above it (4766x)."""
        self.m_precisionFar = (cand_err64, ref_err64)

    def note_no_fp64(self, why):
        self.m_noFp64 = why

    def note_speedup(self, value, against, bound, unmeasurable=None):
        """The speedup of record; `unmeasurable`, where the baseline's calls are within the plumbing's noise (the
        judge's measurable()), says why a figure above the bound is noise there, not a finding."""
        self.m_speedup = (value, against, bound, unmeasurable)

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

    def note_clock(self, claims, frames, plumbing, ref_claims, ref_frames, ref_plumbing):
        """The runner's own clock of its calls against the judge's frames, a cross-check only: the figure is the
        frame whatever the runner says. `claims`/`frames` per timed round (ms a batch), `plumbing` the frame's
        calibrated plumbing; the same for the reference's eager batches, honest by construction. A claim longer
        than its frame is not the runner's clock; frames that are all far beyond their claims hold work outside
        the calls (in a thread, in the outputs' copy), which the frame charges to the candidate. Either is a
        warning with its figures, never a refusal: neither changes the figure. Fastest against fastest: a loaded
        machine only ever adds to a frame, while work done outside the calls is in every one."""
        if not claims or not frames:
            return
        gap = [f - plumbing - c for f, c in zip(frames, claims)]
        ref_gap = [f - ref_plumbing - c for f, c in zip(ref_frames, ref_claims)] or [0.0]
        g_min, r_min = min(gap), min(ref_gap)
        calls = min(claims)
        ev = ["the candidate's frames: median %.4f ms, plumbing %.4f ms, its own clock of its calls median %.4f ms; "
              "outside its clock: %.4f ms at least, %.4f ms median (the reference's eager batches: %.4f ms at least)"
              % (statistics.median(frames), plumbing, statistics.median(claims), g_min, statistics.median(gap), r_min)]
        over = [(i, c, f) for i, (c, f) in enumerate(zip(claims, frames)) if c > f * 1.02 + 0.05]
        if over:
            i, c, f = over[0]
            self.m_timing = ("yes", "the candidate's clock says timed batch %d took %.4f ms, longer than the %.4f ms "
                                    "the judge's frame around it lasted: it is not the runner's clock (the figure is "
                                    "the frame's)" % (i + 1, c, f), ev)
        elif g_min - r_min > max(0.1, 0.2 * calls, max(ref_gap) - r_min):
            # (beyond the reference's own spread of that gap: its noise, measured on the same machine, in the same
            # rounds; on a loaded CPU an honest copy's least gap came out 6.8 ms over eager's, whose own spread was
            # larger)
            self.m_timing = ("yes", "every frame of the candidate's held at least %.4f ms outside its own clock of its "
                                    "calls, the reference's %.4f ms: work beside or after its calls (a thread, the "
                                    "outputs' copy), counted in its figure" % (g_min, r_min), ev)
        else:
            self.m_timing = ("no", "the candidate's own clock agrees with the judge's frames", ev)

    def note_stopped(self, gaps, clean_gaps, frame_ms):
        """CPU time the candidate's processes used between two of its frames, while stopped (ms per gap); the
        same for its process before the candidate was imported. Stopped processes use none: work done there
        escaped the stop and no frame holds it."""
        gaps = [g for g in gaps if g is not None]
        if not gaps:
            self.m_stopped = ("cannot_tell", "the candidate's CPU time could not be read", [])
            return
        clean = [g for g in clean_gaps if g is not None] or [0.0]
        g_med, c_med = statistics.median(gaps), statistics.median(clean)
        bound = max(0.5, 2.0 * max(clean), 0.05 * frame_ms)
        ev = ["CPU time of the candidate's processes while stopped between its frames: median %.4f ms, most %.4f ms "
              "(%d gaps); its process before the candidate was imported: median %.4f ms; bound %.4f ms"
              % (g_med, max(gaps), len(gaps), c_med, bound)]
        if g_med > bound:
            self.m_stopped = ("yes", "the candidate's processes used %.3f ms of CPU (median) between its frames, "
                                     "while they were stopped: work escaped the stop, outside every frame" % g_med, ev)
        else:
            self.m_stopped = ("no", "the candidate's processes used no CPU while stopped", ev)

    def note_busy(self, delayed, rounds, chosen):
        """On a CPU: how many frames of each kind other processes delayed (the kernel's run delay, Frame.waited) out of
        `rounds`, and whether the figures could count frames that were not (`chosen`). Where they could not, the
        figures hold the machine's load as much as the candidate's work: a warning that cannot tell, never a
        refusal."""
        ev = ["frames delayed by other processes: %s, of %d timed rounds" % (
            ", ".join("%s %d" % kv for kv in sorted(delayed.items())), rounds)]
        if chosen or not any(delayed.values()):
            self.m_busy = ("no", "the figures count the frames other processes delayed least" if any(delayed.values())
                           else "no other process delayed a timed frame", ev)
        else:
            self.m_busy = ("yes", "other processes held the CPU in most timed frames (%s of %d): the figures hold the "
                                  "machine's load as much as the candidate's work, so they cannot tell how fast it is"
                           % (", ".join("%s %d" % kv for kv in sorted(delayed.items())), rounds), ev)

    def note_idle(self, ms):
        """The judge's tiny kernel after a delivery, the runner stopped (GPU; None on a CPU)."""
        if ms is not None:
            self.m_idle.append(ms)

    def note_idle_baseline(self, samples):
        """The same tiny kernel after the calibration's deliveries (nothing of the candidate's existed)."""
        self.m_idleBase = list(samples)

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

    def note_baselines(self, clean, during):
        """The baselines' frames (ms, whole batches as the judge's clock saw them) before the candidate was imported
        against those beside it (its process alive, stopped): `clean` lists, `during` stats."""
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
            ev.append("%s frames: fastest %.4f ms before the candidate was imported, %.4f ms beside it; median beside "
                      "it %.4f ms, slowest before %.4f ms" % (name, before, now, med, worst))
            # On a GPU the fastest beside the candidate must also pass the slowest clean round: the clean rounds
            # of an honest task spread 11.8-20.2 ms on an H100 (linear_addmm_gelu, 299d5d5), and 17.9 ms beside
            # it was refused as 1.51x slower. (A CPU's jitter holds the clean spread already.)
            floor = max((1.3 * before, worst)) if self.m_onGpu else 1.6 * before
            if now > floor + jitter:
                hits.append("%s baseline %.2fx slower beside the candidate than before it was imported"
                            % (name, now / before))
            elif self.m_onGpu and med > 1.5 * worst + jitter:
                # (GPU only: on a CPU the median of wall-clock rounds follows the machine's load, which
                # came between the calibration and the candidate's rounds in a CI run, 13.7 ms beside the
                # candidate against 1.6 ms before, the candidate frozen all along; the reported median is
                # capped at the slowest clean round either way, report_times.)
                hits.append("%s baseline's median %.2fx the slowest round before the candidate was imported"
                            % (name, med / worst))
        if not ev:
            return
        if hits and (len(hits) == len(ev) or "graph" in hits[0]):
            if self.m_onGpu:
                self.m_interference = ("yes", hits[0] + ": something of the candidate's slowed it", ev)
            else:
                # On a CPU the machine's load moves between the clean rounds and these (a CI run: an honest
                # copy's eager 1.7x slower beside it, the candidate stopped all along), so this cannot tell a
                # cheat from the machine. It cannot raise the figure either: a baseline beside the candidate is
                # counted at most at the slowest clean round (report_times). Stopped work is the business of
                # integrity.work_while_stopped and the orphan count.
                self.m_interference = ("cannot_tell", hits[0] + ": on a CPU this follows the machine's load; the "
                                       "baseline is counted at most at its slowest clean round", ev, "warning")
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

        out.append(_simple("integrity.cached_output", self.m_cached,
                           "fresh inputs gave fresh outputs in %d trials" % n))
        if self.m_mutationChecked:
            out.append(_simple("integrity.input_mutation", self.m_mutated,
                               "the inputs in the candidate's arena were unchanged after %d calls (read by the judge)"
                               % self.m_mutationChecked))
        else:
            out.append(verdict("integrity.input_mutation", "cannot_tell", "inputs too large to send back"))
        if self.m_runner is None:
            # The evaluation stopped (a wrong result, a crash) before the candidate's process reported what it saw:
            # its observations are unknown, not clean (red team 7's bf16 ReLU patched time.perf_counter at import
            # and was told "timers untouched").
            out.extend(verdict(det, "cannot_tell", UNREPORTED)
                       for det in ("integrity.output_aliasing", "integrity.timer_patch", "integrity.threads"))
        else:
            out.extend(self._reported_verdicts(runner))
        side = [s for s in runner.get("side_stream", []) if isinstance(s, str)]
        if not self.m_onGpu:
            out.append(verdict("integrity.side_stream", "cannot_tell", "CPU run: no CUDA streams to check"))
        elif self.m_runner is None:
            out.append(verdict("integrity.side_stream", "cannot_tell", UNREPORTED))
        elif side:
            out.append(verdict("integrity.side_stream", "yes", side[0], side[:5]))
        else:
            out.append(verdict("integrity.side_stream", "no", "output complete when the current stream was, in %d "
                                                              "trials" % n))
        out.append(self._precision_verdict(runner.get("tf32_changed") is True))
        if self.m_onGpu:
            out.append(self._lingering_verdict())
        for det, got in (("integrity.timing_disagreement", self.m_timing), ("integrity.work_while_stopped", self.m_stopped),
                         ("integrity.baseline_interference", self.m_interference)):
            if got is not None:
                v = verdict(det, got[0], got[1], got[2])
                if len(got) > 3:
                    v["severity"] = got[3]
                out.append(v)
            else:
                out.append(verdict(det, "cannot_tell", "not timed"))
        if self.m_busy is not None:
            out.append(verdict("integrity.busy_machine", self.m_busy[0], self.m_busy[1], self.m_busy[2]))
        if self.m_speedup is None:
            out.append(verdict("integrity.implausible_speedup", "cannot_tell", "not timed"))
        else:
            value, against, bound, unmeasurable = self.m_speedup
            if value > bound and unmeasurable:
                out.append(verdict("integrity.implausible_speedup", "cannot_tell",
                                   "%.1fx the %s baseline, above the plausible %.0fx, but the baseline's calls are "
                                   "within the plumbing's noise: %s" % (value, against, bound, unmeasurable)))
            elif value > bound:
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

    def _lingering_verdict(self):
        det = "integrity.lingering_gpu_work"
        if not self.m_idle or not self.m_idleBase:
            return verdict(det, "cannot_tell", "not measured")
        base = statistics.median(self.m_idleBase)
        bound = base + LINGER_MS
        late = [x for x in self.m_idle if x > bound]
        ev = ["the judge's tiny kernel after each delivery, the candidate's processes stopped: median %.3f ms, "
              "slowest %.3f ms; after the task's own code's: median %.3f ms" % (statistics.median(self.m_idle),
                                                                             max(self.m_idle), base)]
        if len(late) >= max(2, len(self.m_idle) // 5):
            return verdict(det, "yes", "%d of %d deliveries left GPU work of the candidate's running (the judge's "
                                       "kernel waited %.2f ms for a time slice): work outside the call, on the "
                                       "outputs or the inputs, unseen by any clock" % (len(late), len(self.m_idle),
                                                                                    statistics.median(late)), ev)
        return verdict(det, "no", "no GPU work of the candidate's outlived its calls", ev)

    def _reported_verdicts(self, runner):
        """Output aliasing, timer patches and threads, from the candidate's process's report."""
        out = []
        alias = [a for a in runner.get("alias", []) if isinstance(a, str)]
        if alias and self.m_refAliases:
            out.append(verdict("integrity.output_aliasing", "no", "an output shares storage with an input, as the "
                               "task's own output does (a view of its input); the values are checked as any others",
                               alias[:5]))
        else:
            out.append(_simple("integrity.output_aliasing", alias, "the candidate's process saw no output sharing "
                                                                  "storage with an input (its own observation)"))
            if out[-1]["outcome"] == "yes":
                out[-1]["severity"] = "error"
        patched = [p for p in runner.get("timers_patched", []) if isinstance(p, str)]
        if patched:
            out.append(verdict("integrity.timer_patch", "yes", "the candidate replaced " + ", ".join(patched),
                               ["%s was replaced after the candidate was imported" % p for p in patched]))
        else:
            out.append(verdict("integrity.timer_patch", "no", "timers and synchronize untouched (the candidate's "
                                                              "clock is also checked against the judge's)"))
        if self.m_watches is not None:
            n, base = len(self.m_watches), self.m_watchBase
            ref = " (the reference's runner: %d)" % base if base else ""
            if n > base:
                # Blind red team 16: watches on the other runner's cgroup files made every freeze and thaw of it by
                # the judge slow (the reference's frames, inside them); /proc/<pid>/schedstat, read around each
                # frame, can be watched by any user too. A kernel has no use for a file watch.
                out.append(verdict("integrity.file_watch", "yes", "the candidate's processes hold %d file watch "
                                   "descriptor(s) (inotify, fanotify)%s: reads and writes of the files they watch, "
                                   "the judge's among them, do work for it" % (n, ref), self.m_watches[:5]))
            else:
                out.append(verdict("integrity.file_watch", "no", "no file watch in the candidate's processes beyond "
                                   "what the reference's runner holds%s" % ref))
        threads = [t for t in runner.get("threads", []) if isinstance(t, str)]
        if threads:
            out.append(verdict("integrity.threads", "yes", "%d thread(s) started by the candidate still alive"
                               % len(threads), threads))
        else:
            out.append(verdict("integrity.threads", "no", "no extra threads alive after the candidate ran"))
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
        floor = 1e-5 * min(1.0, getattr(self, "m_scale", 1.0))
        if cand > 10.0 * ref and cand > floor:
            ev.insert(0, "max abs error vs fp64: candidate %.3g, strict-fp32 reference %.3g" % (cand, ref))
            return verdict(det, "yes", "error against fp64 %.1fx the fp32 reference's: reduced precision"
                           % (cand / ref if ref > 0 else float("inf")), ev)
        far = self.m_precisionFar
        if far is not None and None not in far and far[0] > FAR_RATIO * far[1] and far[0] > floor:
            ev.insert(0, "max abs error vs fp64 on the timed calls furthest from the reference's outputs: candidate "
                         "%.3g, strict-fp32 reference %.3g (on drawn calls %.3g and %.3g)" % (far[0], far[1], cand, ref))
            return verdict(det, "yes", "error against fp64 %.1fx the fp32 reference's on the call furthest from it: "
                           "reduced precision there" % (far[0] / far[1] if far[1] > 0 else float("inf")), ev)
        if ev:
            return verdict(det, "yes", ev[0], ev)
        return verdict(det, "no", "error vs fp64 %.3g (fp32 reference: %.3g)" % (cand, ref))


FAR_RATIO = 100.0  # note_precision_far's bar: the error against fp64 over the reference's, on the furthest calls


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
