# SPDX-License-Identifier: MIT
"""The `eval` op: the judge. It never imports the candidate.

The judge makes every input (seeded, before any candidate code runs), computes the references
(strict fp32, and fp64 where it fits), times its own baselines, and assembles the result. The
candidate runs in the runner process (runner.py); what comes back from there is data (outputs in the
runner's arena, checked here against the references) or claims (its clock, its observations) that
are cross-checked or can only raise a flag.

One way of timing for all: the judge's eager and CUDA-graph baselines and the runner's calls go
through the same `timing.Clock.span`, and every round has the same steps for whoever is timed. Before
the candidate exists, the runner runs the task's own Model through exactly the steps a candidate's
call takes (calibration rounds); what the judge's wall clock sees around those calls beyond the
runner's clock is the plumbing, measured like with like, with real data of the task's size. So:

- the task's own code comes out at 1.00x by construction, on a GPU and on a CPU;
- a candidate whose frames carry more than the calibration's plumbing hid work outside its clock
  (integrity.timing_disagreement), or in the delivery (integrity.deferred_work); its figure is then
  the judge's frame less the calibrated plumbing, never one inflated by transfers;
- every timed call gets a fresh input set, written into the runner's arena inside the judge's frame,
  and its outputs are delivered and checked (all of them, or a sample the runner cannot know when it
  computes);
- on a GPU the data never leaves the device (arena.DeviceArena), and after each delivery the judge
  times a tiny kernel of its own: GPU work of the candidate's still running then shows as a time slice
  of the other context (integrity.lingering_gpu_work);
- the runner is stopped (frozen) while the judge times its baselines and works on the outputs; the
  baselines beside the candidate are compared with the calibration rounds' (integrity.baseline_interference).
"""
import gc
import math
import os
import random
import statistics
import time
import traceback

import torch

from . import timing
from .arena import ALIGN, Arena, DeviceArena, LayoutError, nbytes, tensor_bytes
from .channel import log
from .evaluate import (FP64_TRIALS, _err64, _fp32_random_draws, _fwd_seed, _graph_baseline, _load_task,
                       _nanmax, _read_source, _timing_counts, _Ctx, compare, device_label, empty_result, flatten,
                       strict_fp32, to_device)
from .failures import NO_GPU_REASON, Failure, one_line
from .integrity import JudgeChecks, is_oom
from .loader import GPU_ONLY, gpu_needs, seed_all
from .runnerclient import RunnerClient, RunnerGone, build_dir_for, place_file

BIG = 256 << 20  # inputs + outputs above this: one set alive at a time, arena regions shared, no fp64 copy
CHECK_ALL_BYTES = 256 << 20  # timed outputs checked in full below this many bytes in all
CHECK_SAMPLE = 5
PROBE_MAX_MS = 200.0  # the sensitivity probe runs the reference up to PROBE_MAX + 1 more times
PROBE_MAX = 4
PROBE_MIN_DIM = 16
FINGERPRINT = 1 << 20  # elements of a big output kept to tell a repeated output from a new one
# Calibration rounds (warm-up, measured): the task's own code through the runner before the candidate.
CAL_ROUNDS = {"gpu": (2, 10), "gpu_big": (1, 8), "cpu": (1, 6)}
# Calls in one framed batch: enough for ~BATCH_TARGET_MS of calls a frame, at most BATCH_MAX, their
# inputs and outputs at most BATCH_BYTES (keys: on a GPU).
BATCH_TARGET_MS = {True: 3.0, False: 0.0}
BATCH_MAX = {True: 64, False: 1}
BATCH_BYTES = 256 << 20
DRY_FRAMES = 5  # (CPU) calibration frames with a forward that does nothing: the plumbing's CPU time
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


_current = None  # the runner of the evaluation in progress


def _take_runner():
    global _runner, _current
    r, _runner = _runner, None
    _current = r or RunnerClient().start()
    return _current


def abort():
    """Kills the candidate's processes of this worker now (a signal ended the evaluation)."""
    for r in (_current, _runner):
        if r is not None:
            try:
                r.kill()
            except Exception:
                pass


def _align(n):
    return (n + ALIGN - 1) // ALIGN * ALIGN


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
        self.calibrating = False
        self.notes = []
        self.ref_peak = -1
        self.cand_model_bytes = 0
        self.err64 = None
        self.out_scale = 0.0
        self.clock = timing.Clock(ctx.device)
        self.in_layouts = []
        self.K = 1  # calls a frame (batch_size)
        self.cpu0 = self.cpu_frame = None
        self.device_draws = True
        self.warm = 0  # (CPU) untimed calls before each timed one, judge and runner alike (timing.cpu_warm_calls)
        self.PS = []
        self.P_fresh = False
        self.m_tick = torch.zeros(1, device=ctx.device) if self.on_gpu else None

    # ---- the runner ------------------------------------------------------------------------------
    def ask(self, msg, fds=()):
        """One command to the runner; its failure becomes the candidate's status (the task's, while the
        runner still holds only the task's code)."""
        try:
            reply = self.runner.request(msg, fds)
        except RunnerGone as e:
            if self.calibrating:
                raise Failure("internal_error", "the candidate's process died running the task's own code: "
                              + e.why)
            if getattr(e, "protocol", False):
                self.checks.note_protocol(e.why)
            raise Failure("crash", e.why + " while %s" % (self.ctx.phase or "starting"))
        if not isinstance(reply, dict) or not (reply.get("ok") is True or isinstance(reply.get("fail"), dict)):
            self.checks.note_protocol("reply to %r is not a runner reply: %s" % (msg.get("cmd"), str(reply)[:200]))
            raise Failure("crash", "the candidate's process answered %r with something that is not a reply"
                          % msg.get("cmd"))
        if "fail" in reply:
            st, why = reply["fail"].get("status"), reply["fail"].get("reason")
            if self.calibrating:
                if st == "out_of_memory":
                    raise Failure("harness_out_of_memory", "the task's own code ran out of memory in the "
                                  "candidate's process: %s%s" % (why, self._memory_context()))
                raise Failure("internal_error", "the task's own code failed in the candidate's process: %s" % why)
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
    def trial_inputs(self, trial):
        """Trial t's inputs, seeded as KernelBench. Big sets are drawn on the device (same seeds, the
        device's generator)."""
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
        """An input set nobody can predict (timed calls): the task's own generator, freshly seeded. On a GPU
        drawn on the device (torch's default device set to it): a 64 MB randn costs half a second on a
        host and a few microseconds there, and every round draws a new set for every call."""
        seed_all(_sysrand.randrange(1 << 62))
        try:
            if self.on_gpu and self.device_draws:
                try:
                    with self.ctx.device:
                        return list(self.ctx.task.get_inputs())
                except (TypeError, AttributeError):  # torch without device context managers
                    self.device_draws = False
            return list(self.ctx.task.get_inputs())
        except BaseException as e:
            if is_oom(e):
                raise _oom_failure("drawing a fresh input set", e, self.ctx, "")
            raise

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
        except BaseException as e:
            if is_oom(e):
                raise _oom_failure("computing the reference", e, self.ctx,
                                   "inputs %.2f GiB" % (self.in_bytes / 2 ** 30))
            raise
        del dev
        return [x.detach() if isinstance(x, torch.Tensor) else x for x in out]

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
        if self.big:
            # An fp64 copy of a big task's data would take the evaluator far past the reference's own
            # footprint; the fp32 comparison at atol/rtol stands (it already refuses fp16/bf16/TF32 here).
            self.memory_note("fp64 check skipped: inputs and outputs of %.2f GiB (in fp64 they would double)"
                             % ((self.in_bytes + self.out_bytes) / 2 ** 30))
            return None
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
        self.out_scale = max(self.out_scale, scale)
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
        init = list(ctx.init_inputs)
        if any(isinstance(x, torch.Tensor) for x in init):
            raise Failure("internal_error", "tasks whose get_init_inputs() returns tensors are not supported yet")

        # Trial 0's inputs and reference, before any candidate code runs: their sizes decide how the
        # evaluation fits the device (big sets: one set and one reference alive at a time).
        self.big = self.probe_input_bytes() > BIG
        first = self.trial_inputs(0)
        self.in_bytes = tensor_bytes(first)
        self.n_inputs = len(first)
        self.big = self.in_bytes > BIG
        ref0 = self.reference(first, _fwd_seed(ctx, 0), measure=True)
        self.out_bytes = self.out_bytes_of(ref0)
        self.out_shapes = [{"shape": list(x.shape), "dtype": str(x.dtype).replace("torch.", "")}
                           for x in ref0 if isinstance(x, torch.Tensor)]
        self.big = self.in_bytes + self.out_bytes > BIG
        self.res["reference_peak_bytes"] = self.ref_peak
        probe_inputs = [x.detach().cpu() if isinstance(x, torch.Tensor) else x for x in first] if not self.big else None
        if self.big:
            del ref0  # made again when trial 0 comes
            ref0 = None
            self.memory_note("inputs and outputs of %.2f GiB: one set alive at a time, on the %s"
                             % ((self.in_bytes + self.out_bytes) / 2 ** 30, "device" if self.on_gpu else "host"))
            sets = None
        else:
            sets = [first] + [self.trial_inputs(t) for t in range(1, n_trials)]
            refs = [ref0] + [self.reference(sets[t], _fwd_seed(ctx, t)) for t in range(1, n_trials)]
        # The judge's timed inputs: the same tensors every round (the graph baseline reads them), filled
        # with new values each round. A big task's are trial 0's until the trials are over.
        self.P = self.timed_inputs(first)
        self.PS = [self.P]
        self.fns = self.baseline_fns()

        self.make_arena()
        self.runner = _take_runner()
        ctx.set_phase("loading_candidate")
        try:
            info = self.runner.wait_ready()
        except RunnerGone as e:
            raise Failure("internal_error", "the candidate's process could not start: %s" % e.why)
        if self.runner.note:
            self.checks.note_isolation(self.runner.note)
        if on_cuda_mismatch(self.on_gpu, info):
            raise Failure("internal_error", "the candidate's process sees no GPU although the judge does")
        fd = self.arena.export_fd()
        try:
            self.ask({"cmd": "arenas", "device": ctx.device.type, "kind": self.arena.kind, "size": self.arena.size},
                     fds=(fd,))
        finally:
            if self.arena.kind == "device":
                os.close(fd)
        self.calibrate(place_file(req["task_file"], self.runner.home, self.runner.m_uid, "kwb_task_reference.py"))

        cand_path = place_file(req["candidate_file"], self.runner.home, self.runner.m_uid)
        builds = build_dir_for(source.encode("utf-8", "surrogateescape"), self.runner.m_uid) if needs else None
        setup = self.ask({"cmd": "setup", "candidate": cand_path, "init": init, "seed": ctx.seed,
                          "needs_gpu": bool(needs), "extensions_dir": builds})
        mb = setup.get("model_bytes")
        self.cand_model_bytes = int(mb) if isinstance(mb, int) and not isinstance(mb, bool) and 0 <= mb < 2 ** 50 else 0
        if self.on_gpu:
            torch.cuda.empty_cache()  # what the judge does not need is the candidate's to use

        if self.big:
            trials = _LazyTrials(self, n_trials, first)
            del first
        else:
            trials = list(zip(sets, refs))
            del sets, refs, first, ref0
        self.correctness(trials)
        del trials
        self.timed()

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
            self.probe_sensitivity(probe_inputs)

        if req.get("profile"):
            ctx.set_phase("profiling")
            from .profile import profile_candidate

            res["profile"], res["profile_note"] = profile_candidate(req, self.on_gpu)
        return self.runner

    def timed_inputs(self, first):
        """The judge's timed inputs P. On a GPU device tensors (a big task's are trial 0's own). On a CPU
        views of shared memory of the judge's own, the same kind of memory the runner's forward reads its
        inputs from (private heap memory gets transparent huge pages, shared memory does not: a forward on
        one is measurably faster than on the other)."""
        if self.on_gpu and self.big:
            return [to_device(x, self.ctx.device) for x in first]
        return [to_device(x, self.ctx.device).clone() if isinstance(x, torch.Tensor) else x for x in first]

    def probe_input_bytes(self):
        """Bytes of one input set, from shapes alone where torch can (meta tensors), else -1."""
        try:
            with torch.device("meta"):
                return tensor_bytes(list(self.ctx.task.get_inputs()))
        except BaseException:
            return -1

    def make_arena(self):
        """The runner's arena: K_max input slots from offset 0, then K_max output slots (a big task has one of
        each, and its outputs go where its inputs were: the judge has checked and copied what it needs of
        the inputs by then). Device memory on a GPU when the driver can export it, host memory otherwise."""
        self.in_slot = _align(max(self.in_bytes, ALIGN))
        self.out_slot = _align(max(self.out_bytes, ALIGN)) + (1 << 12)
        self.k_max = 1 if self.big else max(1, min(BATCH_MAX[self.on_gpu], BATCH_BYTES // (self.in_slot + self.out_slot)))
        self.out_base = 0 if self.big and self.on_gpu else self.k_max * self.in_slot
        size = max(self.k_max * self.in_slot, self.out_base + self.k_max * self.out_slot)
        self.arena = None
        if self.on_gpu and os.environ.get("KWB_NO_DEVICE_ARENA") != "1":
            try:
                self.arena = DeviceArena(size)
            except Exception as e:
                if is_oom(e) or "OUT_OF_MEMORY" in str(e):
                    raise _oom_failure("making the candidate's arena", e, self.ctx, "%.2f GiB" % (size / 2 ** 30))
                self.memory_note("inputs and outputs travel through host memory: the device's memory could not "
                                 "be shared (%s)" % one_line(e, 120))
        if self.arena is None:
            try:
                self.arena = Arena(size, name="kwb-arena")
            except (OSError, ValueError) as e:
                raise _oom_failure("making the candidate's arena", e, self.ctx, "%.2f GiB" % (size / 2 ** 30))

    # ---- baselines ---------------------------------------------------------------------------------
    def baseline_fns(self):
        """The judge's own timed callables, each taking an input set: eager, and the CUDA graph of it on
        the timed inputs P (a big task's graph is captured for a block of rounds of its own, before and
        after the candidate's)."""
        ctx, req = self.ctx, self.req
        fns = {}
        if not req.get("baselines", True):
            return fns
        fns["eager"] = lambda inputs: ctx.ref_model(*inputs)
        self.graph_wanted = self.on_gpu and req.get("graph_baseline", True)
        self.graph_blocks = {}
        if self.graph_wanted and not self.big:
            fn = self.capture_graph()
            if fn is not None:
                fns["graph"] = lambda _inputs, replay=fn: replay()
        elif self.graph_wanted:
            self.graph_block("clean")
        return fns

    def capture_graph(self):
        seed_all(_fwd_seed(self.ctx, 0))
        strict_fp32()
        if self.on_gpu:
            torch.cuda.empty_cache()  # a big task's graph must not sit on top of cached copies of its data
        try:
            if self.big:
                ref_flat = None  # its own copy of the outputs would not fit the evaluator's budget
            else:
                with torch.no_grad():
                    ref_flat = [x.detach().clone() for x in flatten(self.ctx.ref_model(*self.P))
                                if isinstance(x, torch.Tensor)]
            fn, why = _graph_baseline(self.ctx, self.P, ref_flat)
        except BaseException as e:
            if is_oom(e):
                fn, why = None, "out of memory (%s)" % one_line(e, 100)
            else:
                raise
        if fn is None:
            self.notes.append("graph baseline unavailable: " + why)
            log(self.notes[-1])
            self.graph_wanted = False
        return fn

    def graph_block(self, label):
        """A big task's CUDA graph, timed in rounds of its own (its captured outputs would not fit beside the
        candidate's rounds) and released: `clean` before the candidate's process holds any memory of the
        task, `beside` after its rounds, with the runner stopped."""
        fn = self.capture_graph()
        if fn is None:
            return
        _, repeat = _timing_counts(self.req, self.on_gpu)
        try:
            got = timing.time_interleaved({"graph": fn}, self.ctx.device, 1, repeat if label == "beside" else 3,
                                          clock=self.clock)
        except BaseException as e:
            if is_oom(e):
                raise _oom_failure("timing the CUDA graph", e, self.ctx, "")
            raise
        self.graph_blocks[label] = got["graph"]
        del fn
        torch.cuda.empty_cache()

    # ---- one round: the same steps for the task's own code (calibration) and the candidate -----------
    def slot_inputs(self, k):
        """The judge's timed inputs of slot k (the same tensors every round, new values each round); slot 0
        is P, the inputs the CUDA graph reads."""
        while len(self.PS) <= k:
            self.PS.append([x.clone() if isinstance(x, torch.Tensor) else x for x in self.P])
        return self.PS[k]

    def fill(self, k, values):
        """New values into slot k's timed inputs."""
        P = self.slot_inputs(k)
        for i, v in enumerate(values):
            if isinstance(P[i], torch.Tensor) and isinstance(v, torch.Tensor) and P[i].shape == v.shape \
                    and P[i].dtype == v.dtype:
                P[i].copy_(v)
            else:
                P[i] = to_device(v, self.ctx.device)

    def baselines_once(self, fwd_seed, keep_eager, fresh=True):
        """A round of the judge's baselines, the runner stopped: fresh values for every slot drawn first,
        then slot after slot its values copied into the slot's timed inputs (`fresh`) and each baseline run
        on them: the steps the runner takes for each call of a batch (its own copy, then the call). Returns
        ({name: mean ms over the slots}, eager's outputs per slot or None)."""
        times, refs = {}, [None] * self.K
        self.stop_runner()
        try:
            draws = [self.fresh_inputs() for _ in range(self.K)] if fresh and not self.big else None
            with torch.no_grad():
                for k in range(self.K):
                    P = self.slot_inputs(k)
                    for _ in range(self.warm):
                        # (CPU, one call a frame) the runner's warm-up calls come before its new inputs too
                        for fn in self.fns.values():
                            fn(P)
                    if fresh:
                        self.fill(k, draws[k] if draws is not None else self.fresh_inputs())
                        if draws is not None:
                            draws[k] = None
                    for name, fn in self.fns.items():
                        seed_all(fwd_seed)
                        strict_fp32()
                        ms, out = self.clock.span(lambda: fn(P), inputs=P)
                        times.setdefault(name, []).append(ms)
                        if name == "eager" and keep_eager:
                            refs[k] = [x.detach() if isinstance(x, torch.Tensor) else x for x in flatten(out)]
                        del out
        except Failure:
            raise
        except BaseException as e:
            if is_oom(e):
                raise _oom_failure("timing the baselines", e, self.ctx, "")
            raise Failure("internal_error", "a baseline failed while timing: %s" % one_line(e))
        return {n: sum(v) / len(v) for n, v in times.items()}, (refs if keep_eager and self.fns else None)

    def framed_call(self, sets, fwd_seed, what, phase, check_side=False, warm=False, dry=False):
        """Calls of the runner's forward, one per input set, back to back in one frame of the judge's wall
        clock. The input sets are written into the runner's arena inside the frame while the runner and
        everything it started are frozen: nothing of them exists where the candidate can see it before the
        clock runs, and no thread of its can work on them while they are written. L2 is flushed, the runner
        thawed and asked. Returns (claimed ms per call, framed ms, ms the judge's own writing took, reply)."""
        if warm and self.warm and self.in_layouts:
            self.ask({"cmd": "warm", "layout": self.in_layouts[0], "n": self.warm})
        if self.on_gpu:
            self.stop_runner()
        self.cpu0 = self.runner.cpu_ms() if not self.on_gpu else None
        collecting = gc.isenabled()
        gc.disable()  # a collection of the judge's many objects is no part of the plumbing
        t0 = time.perf_counter()
        try:
            layouts = [self.arena.write(s, base=k * self.in_slot) for k, s in enumerate(sets)]
        except LayoutError as e:
            raise Failure("internal_error", "inputs do not fit the arena: %s" % e)
        if self.on_gpu:
            timing._synchronize()
        w_ms = (time.perf_counter() - t0) * 1000.0
        if self.on_gpu:
            self.clock.flusher.flush()
            timing._synchronize()
        self.continue_runner()
        msg = {"cmd": "call", "layouts": layouts, "seed": fwd_seed, "what": what, "phase": phase,
               "check_side_stream": check_side}
        if dry:
            msg["dry"] = True
            msg["dry_out"] = self.out_shapes
        reply = self.ask(msg)
        frame = (time.perf_counter() - t0) * 1000.0
        if collecting:
            gc.enable()
        self.in_layouts = layouts
        ms = reply.get("ms")
        if not isinstance(ms, list) or len(ms) != len(sets):
            self.checks.note_protocol("ms = %r is not one time per call" % (str(ms)[:80],))
            raise Failure("crash", "the candidate's process sent invalid times")
        return [self.number({"ms": x}, "ms") for x in ms], frame, w_ms, reply

    def take_outputs(self, what, n):
        """Asks for the last n calls' outputs; returns (outputs per call, delivery ms). The runner is stopped
        until its next command, so nothing it left running can rewrite them while the judge reads; small
        outputs are copied out at once (the judge's own copy), big ones are read in place."""
        self.continue_runner()
        t0 = time.perf_counter()
        reply = self.ask({"cmd": "deliver", "what": what, "bases": [self.out_base + k * self.out_slot for k in range(n)],
                          "inputs_back": not self.on_gpu, "in_bases": [k * self.in_slot for k in range(n)]})
        ms = (time.perf_counter() - t0) * 1000.0
        self.stop_runner()
        layouts = reply.get("layouts")
        if not isinstance(layouts, list) or len(layouts) != n:
            self.checks.note_protocol("%s: %r output layouts for %d calls" % (what, str(layouts)[:80], n))
            raise Failure("crash", "the candidate's process delivered other outputs than it was asked for")
        outs = []
        for k, layout in enumerate(layouts):
            base = self.out_base + k * self.out_slot
            try:
                got = self.arena.read(layout, base, base + self.out_slot)
            except LayoutError as e:
                self.checks.note_protocol("output layout: %s" % e)
                raise Failure("shape_mismatch", "%s: the outputs do not fit the reference's shapes (%s)" % (what, e))
            outs.append(got if self.big else [x.clone() if isinstance(x, torch.Tensor) else x for x in got])
        return outs, ms

    def take_inputs_and_outputs(self, what, sets):
        """take_outputs, with the inputs in the arena checked against what the judge wrote there
        (integrity.input_mutation): on a GPU read by the judge after the calls, before the delivery (a big
        task's outputs go where its inputs were); on a CPU after it, where the runner has put back the
        copies its forwards read (its own, see runner._own)."""
        def check():
            for k, s in enumerate(sets):
                self.checks.note_inputs(-1, s, self.arena.read(self.in_layouts[k]), what)
        if self.on_gpu:
            self.stop_runner()
            check()
            return self.take_outputs(what, len(sets))
        outs, ms = self.take_outputs(what, len(sets))
        check()
        return outs, ms

    def idle_ms(self):
        """How long a tiny kernel of the judge's takes now (GPU): a context with work still running makes
        it wait for a time slice (~2 ms on an H100, against ~0.02 ms on an idle GPU)."""
        if not self.on_gpu:
            return None
        timing._synchronize()
        t0 = time.perf_counter()
        self.m_tick.add_(1)
        timing._synchronize()
        return (time.perf_counter() - t0) * 1000.0

    def batch_size(self, call_ms):
        """Calls per frame: enough that the frame holds ~BATCH_TARGET_MS of calls, so the plumbing's noise
        (a fraction of a millisecond on a GPU, milliseconds on a loaded CPU) is spread over many calls and
        work hidden outside the calls adds up where the judge's clock sees it."""
        if os.environ.get("KWB_BATCH"):
            return max(1, min(self.k_max, int(os.environ["KWB_BATCH"])))
        if self.big or not call_ms or call_ms <= 0:
            return 1
        return max(1, min(self.k_max, int(math.ceil(BATCH_TARGET_MS[self.on_gpu] / call_ms)) or 1))

    def one_round(self, what, fwd, keep, check, phase="running"):
        """The steps of one round, the same for the task's own code and the candidate: baselines on fresh
        inputs, the framed batch of calls, (checked rounds) the inputs checked, the delivery, the judge's
        tiny kernel. Returns (baseline means, claims, frame, writing ms, delivery ms, outputs, references)."""
        times, refs = self.baselines_once(fwd, keep_eager=keep, fresh=not self.big or self.P_fresh)
        sets = [self.slot_inputs(k) for k in range(self.K)]
        claims, frame, w_ms, _ = self.framed_call(sets, fwd, what, phase, warm=True)
        if check:
            outs, d_ms = self.take_inputs_and_outputs(what, sets)
        else:
            outs, d_ms = self.take_outputs(what, self.K)
        self.cpu_frame = self.cpu_since_frame()
        idle = self.idle_ms()
        return times, claims, frame, w_ms, d_ms, idle, outs, refs

    def cpu_since_frame(self):
        """(CPU) The candidate's CPU time from the frame's start to the end of its delivery, the runner
        frozen at both ends: every process and thread of its, whatever it did, by the kernel's account."""
        if self.on_gpu or self.cpu0 is None:
            return None
        now = self.runner.cpu_ms()
        return None if now is None else now - self.cpu0

    def calibrate(self, task_copy):
        """Rounds with the task's own Model in the runner, before any candidate code exists there: the
        judge's baselines beside it (the clean rounds of integrity.baseline_interference) and framed batches
        of calls through exactly the steps a candidate's take (what the judge's clock sees beyond the
        runner's: the plumbing, for the candidate's frames to be compared with)."""
        ctx = self.ctx
        self.calibrating = True
        self.ask({"cmd": "calibrate", "task": task_copy, "init": list(ctx.init_inputs), "seed": ctx.seed})
        warm, n = CAL_ROUNDS["cpu" if not self.on_gpu else ("gpu_big" if self.big else "gpu")]
        fwd = _fwd_seed(ctx, 0)
        cal = {"claim": [], "sum": [], "frame": [], "write": [], "deliver": [], "idle": [], "cpu": [], "cpu_dry": []}
        clean = {}
        self.K = 1
        for i in range(warm + n):
            last = i == warm + n - 1 and not self.big
            times, claims, frame, w_ms, d_ms, idle, outs, refs = self.one_round("calibration call", fwd, last, False,
                                                                                "loading_candidate")
            if i == 0:
                # How many calls a frame holds, decided on the first round (a warm-up round) from the task's
                # own timing. Calls of a batch follow each other closely on both sides, so each finds torch's
                # code paths as warm as the judge's baselines, which run slot after slot the same way.
                call = times.get("eager", claims[0])
                self.K = self.batch_size(call)
                self.warm = timing.cpu_warm_calls(call) if not self.on_gpu and self.K == 1 else 0
            if i >= warm:
                for k, v in times.items():
                    clean.setdefault(k, []).append(v)
                cal["claim"].append(sum(claims) / len(claims))
                cal["sum"].append(sum(claims))
                cal["frame"].append(frame)
                cal["write"].append(w_ms)
                cal["deliver"].append(d_ms)
                cal["cpu"].append(self.cpu_frame)
                if idle is not None:
                    cal["idle"].append(idle)
            if refs is not None:
                # The task's own code in the candidate's process against the judge's reference of the same
                # inputs: a task that does not reproduce itself across processes is said so here.
                for ref, out in zip(refs, outs):
                    kind, m, _, detail = self.compare(ref, out)
                    if kind != "ok":
                        self.notes.append("the task's own code in the candidate's process differs from the "
                                          "judge's reference (%s): the task does not reproduce itself at this "
                                          "tolerance" % detail)
                        log(self.notes[-1])
                        break
            del outs, refs
        if not self.on_gpu:
            # Frames whose forward does nothing (a copy of its first input), through the same steps: what the
            # candidate's process spends on the plumbing, in CPU time (integrity.timing_disagreement, CPU).
            for _ in range(DRY_FRAMES):
                sets = [self.slot_inputs(k) for k in range(self.K)]
                self.framed_call(sets, fwd, "dry call", "loading_candidate", warm=True, dry=True)
                self.take_outputs("dry call", self.K)
                cal["cpu_dry"].append(self.cpu_since_frame())
        self.cal = cal
        self.cal["K"] = self.K
        self.cal["cpus"] = self.runner.cpus()
        self.cal["cpu_account"] = self.runner.cpu_account() if not self.on_gpu else None
        self.clean = clean
        self.checks.note_idle_baseline(cal["idle"])
        if "eager" in clean and cal["claim"]:
            log("calibration: %d call(s) a frame; the task's own code through the runner %.4f ms, eager in the "
                "judge %.4f ms (medians); plumbing %.4f ms a frame" % (
                    self.K, statistics.median(cal["claim"]), statistics.median(clean["eager"]),
                    statistics.median([f - s for f, s in zip(cal["frame"], cal["sum"])])))
        self.calibrating = False

    # ---- the candidate -----------------------------------------------------------------------------------
    def correctness(self, trials):
        ctx, res = self.ctx, self.res
        prev_cand = prev_ref = None
        fp64_ok = self.req.get("integrity", True) is not False
        err64_c = err64_r = None
        max_abs, mean_sum = None, 0.0
        for trial, (inputs, ref) in enumerate(trials):
            if trial == 0:
                ctx.set_phase("compiling")  # the first call pays Triton JIT / lazy builds
            _, _, _, reply = self.framed_call([inputs], _fwd_seed(ctx, trial), "trial %d" % trial, ctx.phase,
                                              check_side=True)
            if trial == 0:
                peak = reply.get("peak")
                if isinstance(peak, (int, float)) and not isinstance(peak, bool) and 0 <= peak < 2 ** 50:
                    self.cand_peak = peak
                ctx.set_phase("running")
            outs, _ = self.take_inputs_and_outputs("trial %d" % trial, [inputs])
            outs = outs[0]
            self.checks.note_idle(self.idle_ms())
            kind, m, mean, detail = self.compare(ref, outs)
            res["trials"] = trial + 1
            if kind == "shape":
                res["failing_trial"] = trial
                raise Failure("shape_mismatch", "trial %d: %s" % (trial, detail))
            self.checks.note_trial(trial, _fingerprint(outs), prev_cand, _fingerprint(ref), prev_ref)
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
            prev_cand, prev_ref = _fingerprint(outs), _fingerprint(ref)
            del outs, inputs, ref
        if fp64_ok and err64_c is not None:
            self.checks.note_precision(err64_c, err64_r, self.out_scale)
            self.err64 = (err64_c, err64_r)
        cand_peak = getattr(self, "cand_peak", None)
        if cand_peak is not None and self.on_gpu:
            # As the reference's: weights + one input set + what forward allocated at its peak. The
            # candidate's process reports its allocator's figures: a number to read, not a verdict.
            self.res["candidate_peak_bytes"] = int(cand_peak + self.in_bytes + self.cand_model_bytes)

    def timed(self):
        """Warm-up rounds, one discarded round, then `repeat` rounds, each of the judge's baselines and a
        framed batch of K calls of the candidate, every call on fresh inputs."""
        ctx, req, res = self.ctx, self.req, self.res
        warmup, repeat = _timing_counts(req, self.on_gpu)
        checked = set(range(repeat)) if self.out_bytes * self.K * repeat <= CHECK_ALL_BYTES else \
            set(_sysrand.sample(range(repeat), min(repeat, CHECK_SAMPLE)))
        self.checked_timed = 0
        fp64_call = 1 + _sysrand.choice(sorted(checked)) if checked else -1
        if self.big:
            if self.on_gpu:
                torch.cuda.empty_cache()
            self.P = self.fresh_inputs()
            self.PS = [self.P]
            self.P_fresh = True
        fwd = _fwd_seed(ctx, 0)
        base_times = {}
        claimed, framed, sums, writes, delivered, cpus = [], [], [], [], [], []
        for i in range(warmup + repeat + 1):
            rnd = i - warmup  # < 0: warm-up; 0: discarded; 1..repeat: timed
            check = rnd == 0 or (rnd > 0 and (rnd - 1) in checked)
            what = "warm-up calls" if rnd < 0 else "timed calls %d" % rnd
            times, claims, frame, w_ms, d_ms, idle, outs, refs = self.one_round(what, fwd, check, check)
            self.checks.note_idle(idle)
            if rnd > 0:
                for k, v in times.items():
                    base_times.setdefault(k, []).append(v)
                claimed.append(sum(claims) / len(claims))
                sums.append(sum(claims))
                framed.append(frame)
                writes.append(w_ms)
                delivered.append(d_ms)
                cpus.append(self.cpu_frame)
            if check:
                if refs is None:
                    refs = [self.reference(self.slot_inputs(k), fwd) for k in range(self.K)]
                for k, (ref, out) in enumerate(zip(refs, outs)):
                    kind, m, _, detail = self.compare(ref, out)
                    if kind != "ok":
                        res["failing_trial"] = -1
                        raise Failure("wrong_result" if kind == "wrong" else "shape_mismatch",
                                      "%s, call %d of %d: %s (right in all %d correctness trials: the candidate "
                                      "behaves differently once it is timed)" % (what, k + 1, self.K, detail,
                                                                                res["trials"]))
                    res["max_abs_err"] = _nanmax(res["max_abs_err"], m)
                if rnd >= 0:
                    self.checked_timed += self.K
                if rnd == fp64_call and self.err64 is not None:
                    try:
                        got = self.fp64_check(0, self.slot_inputs(0), refs[0], outs[0], fwd_seed=fwd)
                    except BaseException as e:
                        got = None
                        log("no fp64 comparison of %s: %s" % (what, one_line(e)))
                    if got is not None:
                        self.err64 = (_nanmax(self.err64[0], got[0]), _nanmax(self.err64[1], got[1]))
                        res["max_abs_err_fp64"] = self.err64[0]
                        self.checks.note_precision(self.err64[0], self.err64[1], self.out_scale)
            del outs, refs
        if self.big and getattr(self, "graph_wanted", False):
            self.graph_block("beside")
            if self.graph_blocks.get("beside"):
                base_times["graph"] = self.graph_blocks["beside"]
                self.clean["graph"] = self.graph_blocks.get("clean", [])
                self.notes.append("the CUDA graph was timed in rounds of its own before and after the "
                                  "candidate's (big task)")
        if self.K > 1:
            self.notes.append("%d calls a frame (each timed on its own; the judge's clock checks them together)"
                              % self.K)
        self.report_times(base_times, claimed, framed, sums, writes, delivered, cpus)
        report = self.ask({"cmd": "report"})
        self.checks.note_runner(report)
        if self.on_gpu:
            # Where the device's memory went (the GPU check reads these lines): the judge's allocator, the
            # candidate's (its own report), the shared arena.
            log("memory: judge reserved at most %.2f GiB, candidate's process %s GiB, arena %.2f GiB" % (
                torch.cuda.max_memory_reserved() / 2 ** 30,
                "%.2f" % (report["max_reserved"] / 2 ** 30) if isinstance(report.get("max_reserved"), int) else "?",
                self.arena.size / 2 ** 30))

    def report_times(self, base_times, claimed, framed, sums, writes, delivered, cpus):
        res, clean = self.res, self.clean
        beside = {n: timing.stats(v) for n, v in base_times.items() if v}
        for n, v in base_times.items():
            if not v:
                continue
            # A baseline is never reported slower than the slowest round it ran before the candidate
            # existed (beyond 10% of jitter): whatever slowed it beside the candidate, the speedup does not
            # grow with it. integrity.baseline_interference reads the rounds as they were.
            cap = max(clean[n]) if clean.get(n) else None
            if cap and beside[n]["median_ms"] > 1.1 * cap:
                v = [min(x, cap) for x in v]
                self.notes.append("%s rounds beside the candidate were slower than every round before it was "
                                  "imported: counted at most %.4f ms, the slowest of those" % (n, cap))
            res[n] = timing.stats(v)
        res["candidate"] = timing.stats(self.checks.note_timing(claimed, framed, sums, writes, delivered, self.cal, cpus))
        if self.checks.refused_clock():
            self.notes.append("the candidate's own clock was refused; its time is the judge's frame less the "
                              "calibrated plumbing")
        if any(clean.values()):
            self.checks.note_baselines(clean, beside)
        if res["candidate"]["median_ms"]:
            base = res["graph"] if res["graph"]["samples"] else res["eager"]
            if base["samples"]:
                self.checks.note_speedup(base["median_ms"] / res["candidate"]["median_ms"],
                                         "CUDA-graph" if base is res["graph"] else "eager",
                                         float(self.req.get("plausible_speedup", 10.0)))

    def probe_sensitivity(self, inputs):
        """Which parts of the inputs the reference's output does not depend on, at the comparison's
        tolerance: the first half of an input along one dimension is redrawn and the reference run
        again. Where nothing changes, a candidate that skips that work (a recurrence's early steps under
        a random init that forgets them) matches the reference, and no comparison of outputs can tell:
        the result says so instead of staying silent. Judge-side only; skipped for big or slow tasks."""
        eager = self.res["eager"]["median_ms"] or 0.0
        if self.big or eager > PROBE_MAX_MS or inputs is None:
            self.checks.note_sensitivity(None, "not probed: the reference takes %.0f ms%s" % (
                eager, " and the inputs are big" if self.big else ""))
            return
        try:
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


class _LazyTrials:
    """Big sets: trial t's inputs and reference are made when the trial comes and dropped after it (the
    judge keeps one set and one reference alive at a time). Trial 0's inputs are the judge's timed
    inputs until then."""

    def __init__(self, judge, n, first):
        self.m_judge, self.m_n, self.m_first = judge, n, first

    def __iter__(self):
        j = self.m_judge
        for t in range(self.m_n):
            if t == 0:
                inputs, self.m_first = self.m_first, None
            else:
                inputs = j.trial_inputs(t)
            pair = (inputs, j.reference(inputs, _fwd_seed(j.ctx, t)))
            del inputs
            if t == 0:
                j.P, j.PS = None, []  # trial 0's inputs were the timed inputs: gone with the trial
            yield pair
            del pair


def _fingerprint(values):
    """What tells one output from another (integrity.cached_output): the values themselves, or for a big
    tensor a strided sample of them."""
    out = []
    for v in values:
        if isinstance(v, torch.Tensor) and v.numel() > FINGERPRINT:
            flat = v.detach().reshape(-1)
            out.append(flat[::max(1, flat.numel() // FINGERPRINT)].clone())
        else:
            out.append(v.detach().clone() if isinstance(v, torch.Tensor) else v)
    return out


def _deepcopy_to(model, device):
    import copy

    return copy.deepcopy(model).to(device)


def on_cuda_mismatch(on_gpu, info):
    return on_gpu and not info.get("cuda")
