# SPDX-License-Identifier: MIT
"""The `eval` op: the judge. It never imports the candidate.

The judge makes every input (seeded, before any candidate code runs), computes the references
(strict fp32, and fp64 where it fits), times its own baselines with its own clocks, and assembles the
result. The candidate runs in the runner process (runner.py); what comes back from there is data
(outputs in the output arena, checked here against the references) or claims (its CUDA-event times,
its observations) that are cross-checked or can only raise a flag:

- every timed call gets a fresh input set, written into the same runner tensors, and its outputs are
  delivered and checked (all of them, or a sample the runner cannot know when it computes);
- the judge's wall clock frames each timed call; a claimed time far below it is refused
  (integrity.timing_disagreement), and so is work moved into the steps around the call
  (integrity.deferred_work);
- the judge flushes L2 itself and stops the runner (SIGSTOP) while it times its baselines, and
  compares them with the same baselines timed before the candidate was imported
  (integrity.baseline_interference).
"""
import math
import os
import random
import time
import traceback

import torch

from . import timing
from .arena import ALIGN, Arena, LayoutError, nbytes, tensor_bytes
from .channel import log
from .evaluate import (FP64_TRIALS, _err64, _fp32_random_draws, _fwd_seed, _graph_baseline, _load_task,
                       _nanmax, _read_source, _timing_counts, _Ctx, compare, device_label, empty_result, flatten,
                       strict_fp32, to_device)
from .failures import NO_GPU_REASON, Failure, one_line
from .integrity import JudgeChecks, is_oom
from .loader import GPU_ONLY, gpu_needs, seed_all
from .runnerclient import RunnerClient, RunnerGone, place_candidate

BIG_INPUTS = 256 << 20  # above this an input set is drawn when it is needed, not in advance
CHECK_ALL_BYTES = 256 << 20  # timed outputs checked in full below this many bytes in all
CHECK_SAMPLE = 5
MUTATION_CHECK_BYTES = 256 << 20
CLEAN_BASELINE_ROUNDS = 2
PROBE_MAX_MS = 200.0  # the sensitivity probe runs the reference up to PROBE_MAX + 1 more times
PROBE_MAX = 4
PROBE_MIN_DIM = 16
SWITCH_CAP_MS = 0.3  # most unexplained time per call put down to the GPU's context switch
IPC_CAP_MS = 0.5
_sysrand = random.SystemRandom()

_runner = None  # the pre-started runner of this worker process


def prestart_runner():
    """Starts the candidate's process ahead of the request (called by `serve`)."""
    global _runner
    if _runner is None and os.environ.get("KWB_PRESTART_RUNNER", "1") != "0":
        try:
            _runner = RunnerClient().start()
        except Exception as e:  # started again, and reported, when the request comes
            log("runner pre-start failed: %s" % one_line(e))
            _runner = None


def drop_prestarted_runner():
    global _runner
    r, _runner = _runner, None
    if r is not None:
        r.kill()


def _take_runner():
    global _runner
    r, _runner = _runner, None
    return r or RunnerClient().start()


def _align(n):
    return (n + ALIGN - 1) // ALIGN * ALIGN


def _keep(values, device, big):
    """Reference outputs stay on the device unless they are big (then on the host)."""
    return [x.detach().to("cpu" if big else device) if isinstance(x, torch.Tensor) else x for x in values]


def _oom_failure(what, e, ctx, sizes):
    free = ""
    if ctx.device is not None and ctx.device.type == "cuda":
        try:
            f, t = torch.cuda.mem_get_info()
            free = "; device %.1f of %.1f GiB free" % (f / 2 ** 30, t / 2 ** 30)
        except Exception:
            pass
    return Failure("harness_out_of_memory", "the evaluator ran out of memory while %s (%s%s): %s"
                   % (what, sizes, free, one_line(e)))


def run_eval(req, phase):
    t0 = time.time()
    res = empty_result(req)
    ctx = _Ctx(req, phase)
    checks = None
    judge = None
    try:
        _load_task(ctx)
        on_gpu = ctx.device.type == "cuda"
        res["device"], res["on_gpu"] = device_label(ctx.device), on_gpu
        checks = JudgeChecks(on_gpu)
        judge = _Judge(ctx, req, res, checks)
        judge.run()
    except Failure as f:
        res["status"], res["reason"] = f.status, f.reason
    except BaseException as e:  # a bug of ours, or the judge's own memory
        traceback.print_exc()
        if is_oom(e):
            f = _oom_failure("judging (%s)" % (ctx.phase or "starting"), e, ctx, "")
            res["status"], res["reason"] = f.status, f.reason
        else:
            res["status"], res["reason"] = "internal_error", "%s: %s" % (type(e).__name__, one_line(e))
    finally:
        # The runner dies with the evaluation, however it ended (and a pre-started one never used).
        runner = getattr(judge, "runner", None)
        if runner is not None:
            runner.kill()
        elif _runner is not None:
            _runner.kill()
    if checks is not None and req.get("integrity", True):
        try:
            res["runtime_checks"] = checks.verdicts()
        except BaseException:
            traceback.print_exc()
    if not res["profile_note"] and not res["profile"]:
        res["profile_note"] = "not profiled: not requested" if not req.get("profile") else \
            "not profiled: the candidate did not pass"
    log("eval finished in %.2f s: %s (%s)" % (time.time() - t0, res["status"], res["reason"]))
    return res


class _Judge:
    def __init__(self, ctx, req, res, checks):
        self.ctx, self.req, self.res, self.checks = ctx, req, res, checks
        self.on_gpu = res["on_gpu"]
        self.atol, self.rtol = res["atol"], res["rtol"]
        self.runner = None
        self.notes = []
        self.ref_peak = -1
        self.cand_model_bytes = 0

    # ---- the runner ------------------------------------------------------------------------------
    def ask(self, msg, fds=()):
        """One command to the runner; its failure becomes the candidate's status."""
        try:
            reply = self.runner.request(msg, fds)
        except RunnerGone as e:
            if getattr(e, "protocol", False):
                self.checks.note_protocol(e.why)
            raise Failure("crash", e.why + " while %s" % (self.ctx.phase or "starting"))
        if not isinstance(reply, dict) or not (reply.get("ok") is True or isinstance(reply.get("fail"), dict)):
            self.checks.note_protocol("reply to %r is not a runner reply: %s" % (msg.get("cmd"), str(reply)[:200]))
            raise Failure("crash", "the candidate's process answered %r with something that is not a reply"
                          % msg.get("cmd"))
        if "fail" in reply:
            st, why = reply["fail"].get("status"), reply["fail"].get("reason")
            if st not in ("syntax_error", "compile_error", "runtime_error", "crash", "out_of_memory", "no_gpu",
                          "shape_mismatch", "internal_error") or not isinstance(why, str):
                self.checks.note_protocol("failure with an unknown status %r" % (st,))
                st, why = "crash", "the candidate's process reported an unknown failure"
            if st == "internal_error":
                st = "crash"  # the runner cannot declare the harness at fault
            if st == "no_gpu" and self.on_gpu:
                st = "runtime_error"  # the judge knows there is a GPU: the runner cannot say otherwise
            if st == "out_of_memory" and self.on_gpu:
                why += self._memory_context()
            raise Failure(st, why)
        return reply

    def stop_runner(self):
        self._hold(self.runner.pause)

    def continue_runner(self):
        self._hold(self.runner.resume)

    def _hold(self, step):
        """Stopping or continuing the candidate's processes; failing to is the candidate's doing."""
        try:
            step()
        except RunnerGone as e:
            self.checks.note_protocol(e.why)
            raise Failure("crash", e.why)

    def _memory_context(self):
        try:
            f, t = torch.cuda.mem_get_info()
            return " (judge holds %.2f GiB; device %.1f of %.1f GiB free)" % (
                torch.cuda.memory_reserved() / 2 ** 30, f / 2 ** 30, t / 2 ** 30)
        except Exception:
            return ""

    def number(self, reply, key, lo=0.0):
        v = reply.get(key)
        try:
            ok = not isinstance(v, bool) and isinstance(v, (int, float)) and math.isfinite(v) and lo <= v < 1e9
        except OverflowError:
            ok = False
        if not ok:
            self.checks.note_protocol("%s = %r is not a number" % (key, v))
            raise Failure("crash", "the candidate's process sent an invalid %s" % key)
        return float(v)

    # ---- inputs and references -------------------------------------------------------------------
    def probe_input_bytes(self):
        """Bytes of one input set, from shapes alone where torch can (meta tensors), else -1."""
        try:
            with torch.device("meta"):
                return tensor_bytes(list(self.ctx.task.get_inputs()))
        except BaseException:
            return -1

    def trial_inputs(self, trial):
        """Trial t's inputs, seeded as KernelBench. Sets too big to draw quickly on the host are drawn
        on the device (same seeds, the device's generator)."""
        try:
            seed_all(self.ctx.seed + trial)
            if self.big and self.on_gpu:
                with self.ctx.device:
                    return [x for x in self.ctx.task.get_inputs()]
            return [x for x in self.ctx.task.get_inputs()]
        except BaseException as e:
            if is_oom(e):
                raise _oom_failure("drawing the inputs of trial %d" % trial, e, self.ctx, "")
            raise Failure("internal_error", "the task's get_inputs() failed: %s: %s" % (type(e).__name__, one_line(e)))

    def fresh_inputs(self):
        """An input set nobody can predict (timed calls): the task's own generator, freshly seeded."""
        seed_all(_sysrand.randrange(1 << 62))
        if self.big and self.on_gpu:
            with self.ctx.device:  # big sets are drawn on the GPU: seconds less per call
                return list(self.ctx.task.get_inputs())
        return list(self.ctx.task.get_inputs())

    def reference(self, inputs, fwd_seed, measure=False):
        dev = [to_device(x, self.ctx.device) for x in inputs]
        try:
            with torch.no_grad():
                strict_fp32()
                seed_all(fwd_seed)
                if measure and self.on_gpu:
                    torch.cuda.synchronize()
                    torch.cuda.reset_peak_memory_stats()
                    before = torch.cuda.memory_allocated()
                out = flatten(self.ctx.ref_model(*dev))
                if measure and self.on_gpu:
                    torch.cuda.synchronize()
                    self.ref_peak = (torch.cuda.max_memory_allocated() - before) + self.model_bytes(self.ctx.ref_model) \
                        + self.in_bytes
                kept = _keep(out, self.ctx.device, self.out_bytes_of(out) > BIG_INPUTS)
        except BaseException as e:
            if is_oom(e):
                raise _oom_failure("computing the reference", e, self.ctx,
                                   "inputs %.2f GiB" % (self.in_bytes / 2 ** 30))
            raise
        del dev, out
        return kept

    @staticmethod
    def model_bytes(model):
        if not isinstance(model, torch.nn.Module):
            return 0
        return sum(nbytes(p) for p in model.parameters()) + sum(nbytes(b) for b in model.buffers())

    @staticmethod
    def out_bytes_of(values):
        return sum(nbytes(x) for x in values if isinstance(x, torch.Tensor))

    def fp64_check(self, trial, inputs, ref32, cand, fwd_seed=None):
        """Error of the candidate and of the fp32 reference against fp64, where it fits."""
        need = 2 * (self.model_bytes(self.ctx.ref_model) + self.in_bytes + max(self.ref_peak, 0) + self.out_bytes)
        where = self.ctx.device
        if self.on_gpu:
            free, _ = torch.cuda.mem_get_info()
            if need * 1.3 > free:
                where = torch.device("cpu")
                if trial == 0:
                    self.memory_note("fp64 check on the CPU: it needs ~%.1f GiB, the device had %.1f free"
                                     % (need / 2 ** 30, free / 2 ** 30))
        try:
            model64 = _deepcopy_to(self.ctx.ref_model, where).double()
            with torch.no_grad(), _fp32_random_draws():
                seed_all(_fwd_seed(self.ctx, trial) if fwd_seed is None else fwd_seed)
                ref64 = flatten(model64(*[to_device(c, where, torch.float64) for c in inputs]))
            e_c = _err64(ref64, cand)
            e_r = _err64(ref64, ref32)
            scale = max([float(r.abs().max()) for r in ref64 if isinstance(r, torch.Tensor) and r.numel()] or [1.0])
            del model64, ref64
        except BaseException as e:
            if is_oom(e):
                self.memory_note("fp64 check skipped: out of memory (%s)" % one_line(e, 120))
                return None
            raise
        if not e_r <= 1e-3 * max(1.0, scale):
            raise ValueError("the fp32 reference is %.3g from it: not comparable (random draws in forward?)" % e_r)
        self.out_scale = max(getattr(self, "out_scale", 0.0), scale)
        return e_c, e_r

    def compare(self, ref, outs):
        """compare() on the judge's device, or on the host when the device is full (a candidate that
        hoards memory must not turn its wrong answer into the harness's out-of-memory)."""
        try:
            return compare(ref, outs, self.atol, self.rtol, self.ctx.device)
        except BaseException as e:
            if not is_oom(e):
                raise
            if self.on_gpu:
                torch.cuda.empty_cache()
            self.memory_note("outputs compared on the host: the device was full")
            return compare(ref, outs, self.atol, self.rtol, torch.device("cpu"))

    def memory_note(self, text):
        if text not in self.res["memory_note"]:
            self.res["memory_note"] = "; ".join(x for x in (self.res["memory_note"], text) if x)

    # ---- steps ------------------------------------------------------------------------------------
    def run(self):
        ctx, req, res = self.ctx, self.req, self.res
        source = _read_source(req["candidate_file"])
        needs = gpu_needs(source)
        gpu_only = [n for n in needs if n in GPU_ONLY]
        if not self.on_gpu and gpu_only:
            raise Failure("no_gpu", "%s (the candidate uses %s)" % (NO_GPU_REASON, " and ".join(gpu_only)))
        n_trials = max(1, int(req.get("trials", 5)))

        # The inputs and references of the correctness trials exist before the candidate sees any of
        # them (small sets: all of them before any candidate code runs; big ones one trial at a time,
        # so only one set and its reference are alive at once).
        probed = self.probe_input_bytes()
        self.big = probed > BIG_INPUTS
        first = self.trial_inputs(0)
        self.in_bytes = tensor_bytes(first)
        self.n_inputs = len(first)
        self.big = self.in_bytes > BIG_INPUTS
        ref0 = self.reference(first, _fwd_seed(ctx, 0), measure=True)
        self.out_bytes = self.out_bytes_of(ref0)
        self.ref_shapes = [(tuple(r.shape), r.dtype) for r in ref0 if isinstance(r, torch.Tensor)]
        self.res["reference_peak_bytes"] = self.ref_peak
        probe_inputs = [x.detach().cpu() if isinstance(x, torch.Tensor) else x for x in first] if not self.big else None
        if self.big:
            trials = _LazyTrials(self, n_trials, first, ref0)
            self.memory_note("inputs of %.2f GiB: drawn on the %s one trial at a time, references kept on the host"
                             % (self.in_bytes / 2 ** 30, "device" if self.on_gpu else "host"))
        else:
            sets = [first] + [self.trial_inputs(t) for t in range(1, n_trials)]
            trials = [(sets[0], ref0)] + [(sets[t], self.reference(sets[t], _fwd_seed(ctx, t)))
                                         for t in range(1, n_trials)]
        del first, ref0

        timed_fns, clean = self.baselines()

        # The candidate's process gets arenas sized for one input set (two slots when small) and the
        # outputs (with room to spare, so a larger output is a shape mismatch, not a crash).
        slots = 1 if self.big else 2
        slot_bytes = max(self.in_bytes, 256)
        self.inputs_base = _align(self.out_bytes + max(self.out_bytes if not self.big else 0, 1 << 16))
        out_size = self.inputs_base + (self.in_bytes if self.in_bytes <= MUTATION_CHECK_BYTES else 0)
        try:
            self.arena_in = Arena(slots * slot_bytes + 4096, name="kwb-inputs")
            self.arena_out = Arena(out_size + 4096, name="kwb-outputs")
        except (OSError, ValueError) as e:
            raise _oom_failure("making the shared input/output areas", e, ctx,
                               "%.2f GiB" % ((slots * slot_bytes + out_size) / 2 ** 30))
        self.slot_bytes = slot_bytes
        self.slots = slots

        self.runner = _take_runner()
        ctx.set_phase("loading_candidate")
        try:
            info = self.runner.wait_ready()
        except RunnerGone as e:
            raise Failure("internal_error", "the candidate's process could not start: %s" % e.why)
        if self.runner.note:
            self.checks.note_isolation(self.runner.note)
        cand_path = place_candidate(req["candidate_file"], self.runner.home, self.runner.m_uid)
        if on_cuda_mismatch(self.on_gpu, info):
            raise Failure("internal_error", "the candidate's process sees no GPU although the judge does")
        self.measure_plumbing()
        init = list(ctx.init_inputs)
        if any(isinstance(x, torch.Tensor) for x in init):
            raise Failure("internal_error", "tasks whose get_init_inputs() returns tensors are not supported yet")
        self.ask({"cmd": "arenas", "device": ctx.device.type, "in_size": self.arena_in.size,
                  "out_size": self.arena_out.size}, fds=(self.arena_in.fd, self.arena_out.fd))
        self.dry_calls(probe_inputs)
        setup = self.ask({"cmd": "setup", "candidate": cand_path, "init": init, "seed": ctx.seed,
                          "needs_gpu": bool(needs)})
        mb = setup.get("model_bytes")
        self.cand_model_bytes = int(mb) if isinstance(mb, int) and not isinstance(mb, bool) and 0 <= mb < 2 ** 50 else 0
        if self.on_gpu:
            torch.cuda.empty_cache()  # what the judge does not need is the candidate's to use

        self.correctness(trials)
        del trials
        self.timed(timed_fns, clean)

        res["status"] = "ok"
        summary = "correct in %d trials and %d checked timed calls (max abs err %.3g)" % (
            n_trials, self.checked_timed, res["max_abs_err"] if res["max_abs_err"] is not None else 0.0)
        if res["eager"]["samples"]:
            summary += "; %.2fx vs eager" % (res["eager"]["median_ms"] / res["candidate"]["median_ms"])
        if res["graph"]["samples"]:
            summary += ", %.2fx vs CUDA graph" % (res["graph"]["median_ms"] / res["candidate"]["median_ms"])
        if not self.on_gpu:
            summary += " (CPU timings)"
        res["reason"] = "; ".join([summary] + self.notes)

        if req.get("integrity", True) is not False:
            self.probe_sensitivity()

        if req.get("profile"):
            ctx.set_phase("profiling")
            from .profile import profile_candidate

            res["profile"], res["profile_note"] = profile_candidate(req, self.on_gpu)
        return self.runner

    def probe_sensitivity(self):
        """Which parts of the inputs the reference's output does not depend on, at the comparison's
        tolerance: the first half of an input along one dimension is redrawn and the reference run
        again. Where nothing changes, a candidate that skips that work (a recurrence's early steps under
        a random init that forgets them) matches the reference, and no comparison of outputs can tell:
        the result says so instead of staying silent. Judge-side only; skipped for big or slow tasks."""
        eager = self.res["eager"]["median_ms"] or 0.0
        if self.big or eager > PROBE_MAX_MS:
            self.checks.note_sensitivity(None, "not probed: the reference takes %.0f ms%s" % (
                eager, " and the inputs are big" if self.big else ""))
            return
        try:
            inputs = self.trial_inputs(0)
            fwd = _fwd_seed(self.ctx, 0)
            base = self.reference(inputs, fwd)
            found, probes = [], 0
            for i, x in enumerate(inputs):
                if not isinstance(x, torch.Tensor) or not x.is_floating_point() or x.numel() < 2:
                    continue
                for d in range(x.dim()):
                    n = x.shape[d]
                    if n < PROBE_MIN_DIM or probes >= PROBE_MAX:
                        continue
                    probes += 1
                    y = x.clone()
                    part = y.narrow(d, 0, n // 2)
                    part.copy_(torch.randn_like(part) * x.float().std() + x.float().mean())
                    kind, _, _, _ = self.compare(base, self.reference(inputs[:i] + [y] + inputs[i + 1:], fwd))
                    if kind == "ok":
                        found.append((i, d, n // 2, n))
            self.checks.note_sensitivity(found, "%d parts of the inputs probed" % probes)
        except Failure:
            raise
        except BaseException as e:  # a probe is evidence, never a reason to fail the evaluation
            self.checks.note_sensitivity(None, "not probed: %s" % one_line(e))

    def send_set(self, slot, inputs, fwd_seed):
        """Puts an input set into the runner's slot and seeds its next call; returns the judge's
        wall-clock time of that step (ms)."""
        try:
            layout = self.arena_in.write(inputs, base=slot * self.slot_bytes)
        except LayoutError as e:
            raise Failure("internal_error", "inputs do not fit the input area: %s" % e)
        t0 = time.perf_counter()
        self.ask({"cmd": "refill", "slot": slot, "layout": layout, "seed": fwd_seed})
        return (time.perf_counter() - t0) * 1000.0

    def take_outputs(self, what, with_inputs=False):
        msg = {"cmd": "deliver", "what": what}
        if with_inputs:
            msg.update({"inputs": True, "inputs_base": self.inputs_base})
        t0 = time.perf_counter()
        reply = self.ask(msg)
        ms = (time.perf_counter() - t0) * 1000.0
        # Stopped until its next command, so nothing it left running can rewrite the shared outputs
        # while the judge reads them; and what is compared is the judge's own copy.
        self.stop_runner()
        try:
            outs = [x.clone() if isinstance(x, torch.Tensor) else x
                    for x in self.arena_out.read(reply.get("layout"), 0, self.inputs_base)]
            ins = self.arena_out.read(reply.get("inputs_layout"), self.inputs_base) if with_inputs else None
        except LayoutError as e:
            self.checks.note_protocol("output layout: %s" % e)
            raise Failure("shape_mismatch", "%s: the outputs do not fit the reference's shapes (%s)" % (what, e))
        if ins is not None and len(ins) != self.n_inputs:
            self.checks.note_protocol("%s: %d inputs sent back, %d were given" % (what, len(ins), self.n_inputs))
            raise Failure("crash", "the candidate's process sent back other inputs than it was given")
        return outs, ins, ms

    def correctness(self, trials):
        ctx, res = self.ctx, self.res
        prev_cand = prev_ref = None
        fp64_ok = self.req.get("integrity", True) is not False
        err64_c = err64_r = None
        max_abs, mean_sum = None, 0.0
        for trial, (inputs, ref) in enumerate(trials):
            self.send_set(0, inputs, _fwd_seed(ctx, trial))
            if trial == 0:
                ctx.set_phase("compiling")  # the first call pays Triton JIT / lazy builds
            reply = self.ask({"cmd": "call", "slot": 0, "what": "trial %d" % trial,
                              "phase": ctx.phase, "check_side_stream": True})
            if trial == 0:
                peak = reply.get("peak")
                if isinstance(peak, (int, float)) and not isinstance(peak, bool) and 0 <= peak < 2 ** 50:
                    self.cand_peak = peak
                ctx.set_phase("running")
            check_inputs = self.in_bytes <= MUTATION_CHECK_BYTES
            outs, ins, _ = self.take_outputs("trial %d" % trial, with_inputs=check_inputs)
            if ins is not None:
                self.checks.note_inputs(trial, inputs, ins)
            kind, m, mean, detail = self.compare(ref, outs)
            res["trials"] = trial + 1
            if kind == "shape":
                res["failing_trial"] = trial
                raise Failure("shape_mismatch", "trial %d: %s" % (trial, detail))
            self.checks.note_trial(trial, outs, prev_cand, ref, prev_ref)
            max_abs = _nanmax(max_abs, m)
            mean_sum += mean or 0.0
            res["max_abs_err"], res["mean_abs_err"] = max_abs, mean_sum / (trial + 1)
            if fp64_ok and trial < FP64_TRIALS:
                try:
                    got = self.fp64_check(trial, inputs, ref, outs)
                    if got is None:
                        fp64_ok = False
                        self.checks.note_no_fp64(self.res["memory_note"])
                    else:
                        err64_c, err64_r = _nanmax(err64_c, got[0]), _nanmax(err64_r, got[1])
                        res["max_abs_err_fp64"] = err64_c
                except BaseException as e:
                    log("no fp64 comparison: %s: %s" % (type(e).__name__, one_line(e)))
                    self.checks.note_no_fp64("%s: %s" % (type(e).__name__, one_line(e)))
                    res["max_abs_err_fp64"] = None
                    fp64_ok = False
            if kind == "wrong":
                res["failing_trial"] = trial
                raise Failure("wrong_result", "trial %d: %s" % (trial, detail))
            prev_cand = [x.clone() if isinstance(x, torch.Tensor) else x for x in outs]
            prev_ref = ref
        self.err64 = None
        if fp64_ok and err64_c is not None:
            self.checks.note_precision(err64_c, err64_r, self.out_scale)
            self.err64 = (err64_c, err64_r)
        cand_peak = getattr(self, "cand_peak", None)
        if cand_peak is not None and self.on_gpu:
            # As the reference's: weights + one input set + what forward allocated at its peak. The
            # candidate's process reports its allocator's figures: a number to read, not a verdict.
            self.res["candidate_peak_bytes"] = int(cand_peak + self.in_bytes + self.cand_model_bytes)

    def baselines(self):
        """The judge's own timed callables (eager, CUDA graph) and their timing before the candidate
        was imported (the reference for integrity.baseline_interference)."""
        ctx, req = self.ctx, self.req
        fns, clean = {}, {}
        if not req.get("baselines", True):
            return fns, clean
        self.base_inputs = [to_device(x, ctx.device) for x in self.trial_inputs(0)]
        inputs = self.base_inputs
        strict_fp32()
        fns["eager"] = lambda: ctx.ref_model(*inputs)
        if self.on_gpu and req.get("graph_baseline", True):
            seed_all(_fwd_seed(ctx, 0))
            with torch.no_grad():
                ref_flat = [x.detach().clone() for x in flatten(ctx.ref_model(*inputs)) if isinstance(x, torch.Tensor)]
            fn, why = _graph_baseline(ctx, inputs, ref_flat)
            del ref_flat
            if fn is not None:
                fns["graph"] = fn
            else:
                self.notes.append("graph baseline unavailable: " + why)
                log(self.notes[-1])
        # Timed before the candidate exists (on the CPU too: there its processes share the cores), for
        # integrity.baseline_interference.
        try:
            clean = timing.time_interleaved(fns, ctx.device, 0, CLEAN_BASELINE_ROUNDS)
        except BaseException as e:
            if is_oom(e):
                raise _oom_failure("timing the baselines", e, ctx, "")
            raise
        if self.on_gpu:
            if "graph" in fns and (self.big or self.out_bytes > BIG_INPUTS):
                # Big tasks: the graph's private pool is released while the candidate's trials run;
                # it is captured again for the timed rounds.
                fns["graph"] = None
                torch.cuda.empty_cache()
        return fns, clean

    def recapture_graph(self, fns):
        if "graph" not in fns or fns["graph"] is not None:
            return
        seed_all(_fwd_seed(self.ctx, 0))
        with torch.no_grad():
            ref_flat = [x.detach().clone() for x in flatten(self.ctx.ref_model(*self.base_inputs))
                        if isinstance(x, torch.Tensor)]
        fn, why = _graph_baseline(self.ctx, self.base_inputs, ref_flat)
        del ref_flat
        if fn is None:
            del fns["graph"]
            self.notes.append("graph baseline unavailable: " + why)
        else:
            fns["graph"] = fn

    def timed(self, fns, clean):
        ctx, req, res = self.ctx, self.req, self.res
        self.recapture_graph(fns)
        warmup, repeat = _timing_counts(req, self.on_gpu)
        flusher = self.flusher
        total_out = self.out_bytes * repeat
        checked = set(range(repeat)) if total_out <= CHECK_ALL_BYTES else \
            set(_sysrand.sample(range(repeat), min(repeat, CHECK_SAMPLE)))
        self.checked_timed = 0
        fp64_call = 1 + _sysrand.choice(sorted(checked)) if checked else -1
        # What the plumbing costs, measured by the judge: a round trip, a copy of one input set into the
        # runner, a copy of the outputs back.
        ipc = self.ipc
        small = [self.fresh_inputs() for _ in range(repeat + 1 + warmup)] if self.in_bytes <= BIG_INPUTS else None
        self.calib = self._calibrate(small[0] if small else self.fresh_inputs())

        for w in range(warmup):
            self.send_set(w % self.slots, small[w] if small else self.fresh_inputs(), _fwd_seed(ctx, 0))
            self.ask({"cmd": "call", "slot": w % self.slots, "what": "warm-up", "phase": "running"})
            self.take_outputs("warm-up")

        base_times = {n: [] for n in fns}
        claimed, wall, prep, deliver, wake = [], [], [], [], []
        for rnd in range(repeat + 1):  # round 0 is discarded
            if fns:
                self.stop_runner()
                try:
                    got = timing.time_interleaved(fns, ctx.device, 0, 1)
                except BaseException as e:
                    self.continue_runner()
                    if is_oom(e):
                        raise _oom_failure("timing the baselines", e, ctx, "")
                    raise Failure("internal_error", "a baseline failed while timing: %s" % one_line(e))
                self.continue_runner()
                if rnd > 0:
                    for n, v in got.items():
                        base_times[n].extend(v)
            slot = rnd % self.slots
            inputs = small[warmup + rnd] if small else self.fresh_inputs()
            fwd_seed = _fwd_seed(ctx, 0)
            call = {"cmd": "call", "slot": slot, "what": "timed call %d" % rnd, "phase": "running"}
            if small:
                p_ms = 0.0
            else:
                p_ms = self.send_set(slot, inputs, fwd_seed)
            # Wakes the runner from its stop before the window opens (SIGCONT is not free); timed, since a
            # round trip far slower than before the candidate was loaded means it changed the plumbing.
            # A big set's refill has woken it already, and a round trip after the refill would be time
            # outside the frame with the inputs in the runner's hands.
            if small:
                wake.append(self._ping())
            if flusher is not None:
                timing._synchronize()
                flusher.flush()
                timing._synchronize()
            t0 = time.perf_counter()
            if small:
                # Small sets are written inside the judge's window, after the round trip that wakes the
                # runner: nothing of them exists where the runner can see it before the clock runs
                # (the copy itself is calibrated out by the dry calls, which do the same).
                call.update({"layout": self.arena_in.write(inputs, base=slot * self.slot_bytes), "seed": fwd_seed})
            reply = self.ask(call)
            w_ms = (time.perf_counter() - t0) * 1000.0
            c_ms = self.number(reply, "ms")
            outs, _, d_ms = self.take_outputs("timed call %d" % rnd)
            if rnd > 0:
                claimed.append(c_ms)
                wall.append(w_ms)
                prep.append(p_ms)
                deliver.append(d_ms)
            if rnd == 0 or (rnd - 1) in checked:
                ref = self.reference(inputs, fwd_seed)
                kind, m, _, detail = self.compare(ref, outs)
                if kind != "ok":
                    res["failing_trial"] = -1
                    raise Failure("wrong_result" if kind == "wrong" else "shape_mismatch",
                                  "timed call %d: %s (right in all %d correctness trials: the candidate behaves "
                                  "differently once it is timed)" % (rnd, detail, res["trials"]))
                res["max_abs_err"] = _nanmax(res["max_abs_err"], m)
                self.checked_timed += 1
                if rnd == fp64_call and self.err64 is not None:
                    try:
                        got = self.fp64_check(0, inputs, ref, outs, fwd_seed=fwd_seed)
                    except BaseException as e:
                        got = None
                        log("no fp64 comparison of timed call %d: %s" % (rnd, one_line(e)))
                    if got is not None:
                        self.err64 = (_nanmax(self.err64[0], got[0]), _nanmax(self.err64[1], got[1]))
                        res["max_abs_err_fp64"] = self.err64[0]
                        self.checks.note_precision(self.err64[0], self.err64[1], self.out_scale)
                del ref
            del outs, inputs

        beside = {n: timing.stats(v) for n, v in base_times.items()}
        for n, v in base_times.items():
            # A baseline is never reported slower than the slowest round it ran before the candidate
            # existed (beyond 10% of jitter): whatever slowed it beside the candidate, the speedup does
            # not grow with it. integrity.baseline_interference reads the rounds as they were.
            cap = max(clean[n]) if clean.get(n) else None
            if cap and v and beside[n]["median_ms"] > 1.1 * cap:
                v = [min(x, cap) for x in v]
                self.notes.append("%s rounds beside the candidate were slower than every round before it was "
                                  "imported: counted at most %.4f ms, the slowest of those" % (n, cap))
            res[n] = timing.stats(v)
        res["candidate"] = timing.stats(self.checks.note_timing(claimed, wall, prep, deliver, wake, ipc, self.calib))
        if self.checks.refused_clock():
            self.notes.append("the candidate's own clock was refused; its time is the judge's wall clock")
        if clean:
            self.checks.note_baselines(clean, beside)
        if res["candidate"]["median_ms"]:
            base = res["graph"] if res["graph"]["samples"] else res["eager"]
            if base["samples"]:
                self.checks.note_speedup(base["median_ms"] / res["candidate"]["median_ms"],
                                         "CUDA-graph" if base is res["graph"] else "eager",
                                         float(req.get("plausible_speedup", 10.0)))
        report = self.ask({"cmd": "report"})
        self.checks.note_runner(report)

    def _ping(self):
        t0 = time.perf_counter()
        self.ask({"cmd": "ping"})
        return (time.perf_counter() - t0) * 1000.0

    def _calibrate(self, inputs):
        """The judge's own cost of the copies a refill and a delivery make (ms), for deferred_work."""
        dev = self.ctx.device
        t0 = time.perf_counter()
        for _ in range(2):
            moved = [to_device(x, dev).clone() if isinstance(x, torch.Tensor) else x for x in inputs]
            seed_all(1)
            if dev.type == "cuda":
                torch.cuda.synchronize()
        h2d = (time.perf_counter() - t0) * 500.0
        out = [torch.empty(shape, dtype=dtype, device=dev) for shape, dtype in self.ref_shapes]
        t0 = time.perf_counter()
        for _ in range(2):
            self.arena_out.write(out)
        d2h = (time.perf_counter() - t0) * 500.0
        del moved, out
        # The runner's own plumbing around a forward (events, waits, bookkeeping), timed on the same
        # code here with a forward that does nothing; and what the GPU's switch between the judge's
        # and the runner's contexts costs (the runner's tick, beyond a plain round trip), capped so a
        # candidate that slows its ticks buys at most that much unexplained time.
        from .runner import Runner

        local = Runner(None)
        local.m_device = dev
        local.m_model = lambda *xs: xs[0]
        local.m_slots = {0: [torch.zeros(1, device=dev)]}
        calls = []
        for _ in range(5):
            t0 = time.perf_counter()
            local.call({"slot": 0})
            calls.append((time.perf_counter() - t0) * 1000.0)
        local.m_in = self.arena_in
        layout = self.arena_in.write(inputs)
        copies = []
        for _ in range(3):
            t0 = time.perf_counter()
            local.refill({"slot": 1, "layout": layout, "seed": 1})
            copies.append((time.perf_counter() - t0) * 1000.0)
        del local
        return {"h2d_ms": h2d, "d2h_ms": d2h, "call_ms": min(calls), "switch_ms": self.switch,
                "in_call_copy_ms": min(copies) if not self.big else 0.0, "dry_ms": self.dry_ms, "dry_spread_ms": self.dry_spread}

    def dry_calls(self, inputs):
        """Framed calls through the runner before any candidate code exists, with a forward that does
        nothing: what the judge's wall clock sees beyond a forward's own time (the copy of a small input
        set, waking the process, events, waits). Trusted because nothing of the candidate's has run."""
        walls = []
        for i in range(6):
            msg = {"cmd": "call", "slot": 0, "dry": True, "what": "dry call"}
            self._ping()
            self.flush_for_tick()
            t0 = time.perf_counter()
            if inputs is not None:
                msg.update({"layout": self.arena_in.write(inputs), "seed": 1})
            self.ask(msg)
            walls.append((time.perf_counter() - t0) * 1000.0)
            self.ask({"cmd": "deliver", "what": "dry call"})
        self.dry_ms = max(min(walls[1:]) - self.ipc, 0.0)
        # How much the same framed step varies on this machine now (trusted: nothing of the
        # candidate's exists yet). On a loaded CPU it is milliseconds, and the CPU's rules allow it.
        self.dry_spread = max(walls[1:]) - min(walls[1:])

    def measure_plumbing(self):
        """Round trip and GPU context switch, measured before the candidate is imported (the runner is
        still only our code), capped: a candidate cannot buy itself unexplained time here."""
        self.flusher = timing.L2Flusher(self.ctx.device) if self.on_gpu else None
        self.ipc = min(sorted(self._ping() for _ in range(7))[1], IPC_CAP_MS)
        self.switch = 0.0
        if self.on_gpu:
            ticks = []
            for _ in range(5):
                self.flush_for_tick()
                t0 = time.perf_counter()
                self.ask({"cmd": "tick"})
                ticks.append((time.perf_counter() - t0) * 1000.0)
            self.switch = min(max(min(ticks) - self.ipc, 0.0), SWITCH_CAP_MS)

    def flush_for_tick(self):
        if self.flusher is not None:
            timing._synchronize()
            self.flusher.flush()
            timing._synchronize()


class _LazyTrials:
    """Big input sets: trial t's inputs and reference are made when the trial comes, and dropped
    after it (the judge keeps one set and one reference alive at a time)."""

    def __init__(self, judge, n, first, ref0):
        self.m_judge, self.m_n, self.m_first = judge, n, (first, ref0)

    def __iter__(self):
        for t in range(self.m_n):
            if t == 0:
                pair, self.m_first = self.m_first, None
            else:
                inputs = self.m_judge.trial_inputs(t)
                pair = (inputs, self.m_judge.reference(inputs, _fwd_seed(self.m_judge.ctx, t)))
            yield pair
            del pair


def _deepcopy_to(model, device):
    import copy

    return copy.deepcopy(model).to(device)


def on_cuda_mismatch(on_gpu, info):
    return on_gpu and not info.get("cuda")
