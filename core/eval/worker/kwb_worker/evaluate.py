# SPDX-License-Identifier: MIT
"""The `eval` and `baseline` operations: correctness against a strict-fp32 reference, interleaved
timing against eager and CUDA-graph baselines, run-time integrity checks, optional profiling.

Every function returns an EvalResult dict (PROTOCOL.md); candidate failures become statuses,
never exceptions. `phase(name)` is called as the evaluation moves on.
"""
import copy
import math
import os
import time
import traceback

import torch

from . import timing  # first: it keeps the genuine clocks before any candidate is imported
from .channel import log
from .failures import NO_GPU_REASON, Failure, classify, one_line
from .integrity import IntegrityChecks, storage_ptr
from .loader import GPU_ONLY, gpu_needs, import_file, seed_all

FP64_TRIALS = 2  # trials also compared with an fp64 reference (enough to judge precision, cheap on CPU)


def empty_result(req):
    none_stats = timing.stats([])
    return {"status": "internal_error", "reason": "", "log_tail": "", "device": "", "on_gpu": False,
            "torch_version": torch.__version__, "trials": 0, "failing_trial": -1,
            "max_abs_err": None, "mean_abs_err": None, "max_abs_err_fp64": None,
            "atol": float(req.get("atol", 1e-4)), "rtol": float(req.get("rtol", 1e-4)),
            "candidate": dict(none_stats), "eager": dict(none_stats), "graph": dict(none_stats),
            "runtime_checks": [], "profile": {}, "profile_note": "", "sandboxed": False, "sandbox_note": "",
            "wall_seconds": 0.0}


def strict_fp32():
    """The ground truth is computed without TF32 (facts.md: TF32 cuDNN fails allclose at 1e-4)."""
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    if hasattr(torch, "set_float32_matmul_precision"):
        torch.set_float32_matmul_precision("highest")


def resolve_device(name):
    """torch.device for "auto" | "cpu" | "cuda"; raises Failure(no_gpu) for cuda without a GPU."""
    name = (name or "auto").lower()
    if name == "auto":
        name = "cuda" if torch.cuda.is_available() else "cpu"
    if name.startswith("cuda"):
        if not torch.cuda.is_available():
            raise Failure("no_gpu", NO_GPU_REASON + " (device cuda requested)")
        return torch.device("cuda", torch.cuda.current_device())
    if name == "cpu":
        return torch.device("cpu")
    raise ValueError("unknown device %r" % name)


def device_label(device):
    if device.type == "cuda":
        return "cuda:%d %s" % (device.index or 0, torch.cuda.get_device_name(device))
    return "cpu"


def flatten(out):
    """A forward's return value as a flat list (tuples and lists of outputs are handled)."""
    if isinstance(out, (tuple, list)):
        flat = []
        for o in out:
            flat.extend(flatten(o))
        return flat
    return [out]


def to_device(x, device, dtype=None):
    if isinstance(x, torch.Tensor):
        x = x.to(device)
        if dtype is not None and x.is_floating_point():
            x = x.to(dtype)
    return x


def clone(x):
    return x.detach().clone() if isinstance(x, torch.Tensor) else copy.deepcopy(x)


def describe(t):
    if isinstance(t, torch.Tensor):
        return "%s %s" % (tuple(t.shape), str(t.dtype).replace("torch.", ""))
    return type(t).__name__


def compare(ref_list, cand_list, atol, rtol):
    """Returns (kind, max_abs, mean_abs, detail) with kind "ok" | "shape" | "wrong"."""
    if len(ref_list) != len(cand_list):
        return "shape", None, None, "expected %d output(s), got %d" % (len(ref_list), len(cand_list))
    max_abs, total, count, detail = 0.0, 0.0, 0, ""
    for k, (r, c) in enumerate(zip(ref_list, cand_list)):
        if isinstance(r, torch.Tensor) != isinstance(c, torch.Tensor):
            return "shape", None, None, "output %d: expected %s, got %s" % (k, describe(r), describe(c))
        if not isinstance(r, torch.Tensor):
            if r != c:
                return "wrong", None, None, "output %d: expected %r, got %r" % (k, r, c)
            continue
        if tuple(r.shape) != tuple(c.shape) or r.dtype != c.dtype:
            return "shape", None, None, "output %d: expected %s, got %s" % (k, describe(r), describe(c))
        c = c.detach().to(r.device)
        if r.numel() == 0:
            continue
        diff = (c.double() - r.double()).abs()
        bad_nan = bool((torch.isnan(c) & ~torch.isnan(r)).any())
        m = float(diff.max()) if not bad_nan else math.nan
        max_abs = m if math.isnan(m) or math.isnan(max_abs) else max(max_abs, m)
        total += float(torch.nan_to_num(diff, nan=0.0).sum())
        count += diff.numel()
        if bad_nan:
            detail = detail or "output %d has NaN where the reference has none" % k
        elif not torch.allclose(c, r, atol=atol, rtol=rtol):
            detail = detail or ("output %d: max abs err %.3g exceeds atol %.0e + rtol %.0e x |ref|"
                                % (k, m, atol, rtol))
    mean_abs = total / count if count else 0.0
    return ("wrong" if detail else "ok"), max_abs, mean_abs, detail


def _nanmax(a, b):
    if a is None:
        return b
    if b is None:
        return a
    if math.isnan(a) or math.isnan(b):
        return math.nan
    return max(a, b)


def _read_source(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError as e:
        raise Failure("internal_error", "cannot read candidate file: %s" % e)


class _Ctx:
    """What an evaluation has loaded so far."""

    def __init__(self, req, phase):
        self.req = req
        self.phase_cb = phase
        self.phase = None
        self.seed = int(req.get("seed", 42))
        self.device = None
        self.task = None
        self.init_inputs = None
        self.ref_model = None

    def set_phase(self, name):
        self.phase = name
        self.phase_cb(name)


def _load_task(ctx):
    ctx.set_phase("loading_task")
    try:
        ctx.task = import_file(ctx.req["task_file"], "task")
        ctx.device = resolve_device(ctx.req.get("device", "auto"))
        strict_fp32()
        # As KernelBench: seed before init inputs and again before Model(...).
        seed_all(ctx.seed)
        ctx.init_inputs = list(ctx.task.get_init_inputs())
        seed_all(ctx.seed)
        ctx.ref_model = ctx.task.Model(*ctx.init_inputs).to(ctx.device)
    except Failure:
        raise
    except BaseException as e:  # the task is trusted; its failure is ours, not a candidate's
        traceback.print_exc()
        raise Failure("internal_error", "task %s could not be loaded: %s: %s"
                      % (os.path.basename(ctx.req["task_file"]), type(e).__name__, one_line(e)))


def _inputs(ctx, trial):
    seed_all(ctx.seed + trial)
    return [to_device(x, ctx.device) for x in ctx.task.get_inputs()]


def _fwd_seed(ctx, trial):
    """Forward calls are seeded alike so tasks drawing random numbers in forward (35_LSTM's h0/c0)
    give the reference and the candidate the same draws."""
    return ctx.seed + 1000 + trial


def _sync(ctx):
    if ctx.device.type == "cuda":
        torch.cuda.synchronize()


def _graph_baseline(ctx, inputs, ref_out_flat):
    """(replay_fn, None) or (None, why)."""
    try:
        replay, static_out, graph = timing.capture_graph(ctx.ref_model, inputs)
        seed_all(_fwd_seed(ctx, 0))
        replay()
        torch.cuda.synchronize()
        # A sanity check only: a task drawing random numbers in forward (35_LSTM) may differ by design.
        kind, m, _, detail = compare(ref_out_flat, flatten(static_out), 1e-4, 1e-4)
        if kind != "ok":
            log("note: CUDA-graph replay output differs from eager (%s); timing it anyway" % detail)
        def fn():
            # The closure keeps the graph and its static output (graph-pool memory) alive.
            replay()
            return static_out

        return fn, None
    except BaseException as e:
        traceback.print_exc()
        try:
            torch.cuda.synchronize()
        except BaseException:
            pass
        return None, "%s: %s" % (type(e).__name__, one_line(e))


def run_baseline(req, phase):
    """The `baseline` op: times the reference (eager, and its CUDA graph on a GPU)."""
    res = empty_result(req)
    ctx = _Ctx(req, phase)
    try:
        _load_task(ctx)
        res["device"], res["on_gpu"] = device_label(ctx.device), ctx.device.type == "cuda"
        ctx.set_phase("running")
        inputs = _inputs(ctx, 0)
        with torch.no_grad():
            seed_all(_fwd_seed(ctx, 0))
            ref_flat = [clone(x) for x in flatten(ctx.ref_model(*inputs))]
        fns = {"eager": lambda: ctx.ref_model(*inputs)}
        notes = []
        if res["on_gpu"] and req.get("graph_baseline", True):
            fn, why = _graph_baseline(ctx, inputs, ref_flat)
            if fn is not None:
                fns["graph"] = fn
            else:
                notes.append("graph baseline unavailable: " + why)
        warmup, repeat = _timing_counts(req, res["on_gpu"])
        times = timing.time_interleaved(fns, ctx.device, warmup, repeat)
        for name, samples in times.items():
            res[name] = timing.stats(samples)
        res["status"] = "ok"
        res["reason"] = "; ".join(["baseline timed on %s, %d samples" % (res["device"], repeat)] + notes)
    except Failure as f:
        res["status"], res["reason"] = f.status, f.reason
    except BaseException as e:
        traceback.print_exc()
        st, why = classify(e, ctx.phase or "running", on_gpu=res["on_gpu"])
        res["status"], res["reason"] = (st if st in ("out_of_memory", "crash") else "internal_error"), \
            "reference failed: " + why
    return res


def _timing_counts(req, on_gpu):
    """CPU timing uses fewer rounds by default: a CPU figure is only a rough label."""
    warmup = req.get("warmup")
    repeat = req.get("repeat")
    if warmup is None:
        warmup = 3 if on_gpu else 1
    if repeat is None:
        repeat = 20 if on_gpu else 5
    return int(warmup), int(repeat)


def run_eval(req, phase):
    """The `eval` op."""
    t0 = time.time()
    res = empty_result(req)
    ctx = _Ctx(req, phase)
    checks = None
    try:
        _load_task(ctx)
        on_gpu = ctx.device.type == "cuda"
        res["device"], res["on_gpu"] = device_label(ctx.device), on_gpu
        checks = IntegrityChecks(on_gpu) if req.get("integrity", True) else None
        _eval_candidate(ctx, req, res, checks)
    except Failure as f:
        res["status"], res["reason"] = f.status, f.reason
    except BaseException as e:  # a bug of ours
        traceback.print_exc()
        res["status"], res["reason"] = "internal_error", "%s: %s" % (type(e).__name__, one_line(e))
    if checks is not None:
        try:
            res["runtime_checks"] = checks.verdicts()
        except BaseException:
            traceback.print_exc()
    if not res["profile_note"] and not res["profile"]:
        res["profile_note"] = "not profiled: not requested" if not req.get("profile") else \
            "not profiled: the candidate did not pass"
    log("eval finished in %.2f s: %s (%s)" % (time.time() - t0, res["status"], res["reason"]))
    return res


def _eval_candidate(ctx, req, res, checks):
    cand_file = req["candidate_file"]
    atol, rtol = res["atol"], res["rtol"]
    n_trials = max(1, int(req.get("trials", 5)))
    on_gpu = res["on_gpu"]
    source = _read_source(cand_file)
    needs = gpu_needs(source)

    def fail(exc):
        traceback.print_exc()
        st, why = classify(exc, ctx.phase, cand_file, needs_gpu=bool(needs), on_gpu=on_gpu)
        if st == "no_gpu" and needs and "(" not in why:
            why += " (uses %s)" % ", ".join(needs)
        raise Failure(st, why)

    # --- load the candidate -----------------------------------------------------------------
    ctx.set_phase("loading_candidate")
    gpu_only = [n for n in needs if n in GPU_ONLY]
    if not on_gpu and gpu_only:
        raise Failure("no_gpu", "%s (the candidate uses %s)" % (NO_GPU_REASON, " and ".join(gpu_only)))
    try:
        mod = import_file(cand_file, "candidate")
        if not hasattr(mod, "ModelNew"):
            raise Failure("syntax_error", "the candidate defines no class ModelNew")
        seed_all(ctx.seed)  # as KernelBench: ModelNew's parameters match Model's when made in the same order
        cand_model = mod.ModelNew(*ctx.init_inputs)
        if isinstance(cand_model, torch.nn.Module):
            cand_model = cand_model.to(ctx.device)
    except Failure:
        raise
    except SystemExit as e:
        raise Failure("crash", "the candidate called sys.exit(%s)" % e.code)
    except BaseException as e:
        fail(e)
    if checks:
        checks.note_tf32()

    # --- correctness trials -------------------------------------------------------------------
    ref64_model = None
    fp64_ok = True
    max_abs, mean_sum, err64_cand, err64_ref = None, 0.0, None, None
    prev_cand = prev_ref = None
    for trial in range(n_trials):
        inputs = _inputs(ctx, trial)
        clones = [clone(x) for x in inputs]
        input_ptrs = {storage_ptr(x): i for i, x in enumerate(inputs) if isinstance(x, torch.Tensor)}
        with torch.no_grad():
            strict_fp32()
            seed_all(_fwd_seed(ctx, trial))
            ref_out = ctx.ref_model(*inputs)
            ref_flat = flatten(ref_out)
            ref_keep = [clone(x) for x in ref_flat]
            # Poison then free the reference output: a candidate returning recycled memory
            # (torch.empty games) sees NaN instead of the right answer.
            freed = set()
            for r in ref_flat:
                if isinstance(r, torch.Tensor) and r.is_floating_point():
                    p = storage_ptr(r)
                    if p not in input_ptrs:
                        r.fill_(float("nan"))
                        freed.add(p)
            r = None
            del ref_out, ref_flat
            _sync(ctx)

        if trial == 0:
            ctx.set_phase("compiling")  # the first call pays Triton JIT / lazy builds
        try:
            with torch.no_grad():
                strict_fp32()
                seed_all(_fwd_seed(ctx, trial))
                cand_out = cand_model(*inputs)
                cand_flat = flatten(cand_out)
                side_differs = None
                if on_gpu:
                    torch.cuda.current_stream().synchronize()
                    snap = [clone(x) for x in cand_flat]
                    torch.cuda.synchronize()
                    side_differs = not all(_equal_nan(a, b) for a, b in zip(snap, cand_flat))
        except SystemExit as e:
            raise Failure("crash", "the candidate called sys.exit(%s)" % e.code)
        except BaseException as e:
            fail(e)
        if checks:
            checks.note_tf32()
        if trial == 0:
            ctx.set_phase("running")

        kind, m, mean, detail = compare(ref_keep, cand_flat, atol, rtol)
        has_nan = any(isinstance(c, torch.Tensor) and c.is_floating_point() and bool(torch.isnan(c).any())
                      for c in cand_flat)
        if checks:
            checks.note_trial(trial, cand_flat, prev_cand, ref_keep, prev_ref, inputs, clones, input_ptrs,
                              freed, has_nan and kind != "ok")
            if side_differs is not None:
                checks.note_side_stream(trial, side_differs)
        res["trials"] = trial + 1
        if kind == "shape":
            res["failing_trial"] = trial
            raise Failure("shape_mismatch", "trial %d: %s" % (trial, detail))
        max_abs = _nanmax(max_abs, m)
        mean_sum += mean or 0.0
        res["max_abs_err"], res["mean_abs_err"] = max_abs, mean_sum / (trial + 1)

        if fp64_ok and trial < FP64_TRIALS and req.get("integrity", True) is not False:
            try:
                if ref64_model is None:
                    ref64_model = copy.deepcopy(ctx.ref_model).double()
                with torch.no_grad(), _fp32_random_draws():
                    seed_all(_fwd_seed(ctx, trial))
                    ref64 = flatten(ref64_model(*[to_device(c, ctx.device, torch.float64) for c in clones]))
                e_c = _err64(ref64, cand_flat)
                e_r = _err64(ref64, ref_keep)
                scale = max([float(r.abs().max()) for r in ref64 if isinstance(r, torch.Tensor) and r.numel()] or [1.0])
                if not e_r <= 1e-3 * max(1.0, scale):
                    # strict fp32 is ~1e-7 from fp64; this far off, the fp64 run is not the same
                    # computation (e.g. torch.randn in forward draws other numbers in float64).
                    raise ValueError("the fp32 reference is %.3g from it: not comparable (random draws in "
                                     "forward?)" % e_r)
                err64_cand, err64_ref = _nanmax(err64_cand, e_c), _nanmax(err64_ref, e_r)
                res["max_abs_err_fp64"] = err64_cand
            except BaseException as e:
                log("no fp64 comparison: %s: %s" % (type(e).__name__, one_line(e)))
                if checks:
                    checks.note_no_fp64("%s: %s" % (type(e).__name__, one_line(e)))
                res["max_abs_err_fp64"] = None
                fp64_ok = False

        if kind == "wrong":
            res["failing_trial"] = trial
            raise Failure("wrong_result", "trial %d: %s" % (trial, detail))
        prev_cand = [clone(x) for x in cand_flat]
        prev_ref = ref_keep
        del cand_out, cand_flat

    if checks and fp64_ok and err64_cand is not None:
        checks.note_precision(err64_cand, err64_ref)

    # --- timing -------------------------------------------------------------------------------
    notes = []
    inputs = _inputs(ctx, 0)
    fns = {}
    with torch.no_grad():
        if req.get("baselines", True):
            strict_fp32()
            fns["eager"] = lambda: ctx.ref_model(*inputs)
            if on_gpu and req.get("graph_baseline", True):
                seed_all(_fwd_seed(ctx, 0))
                ref_flat = [clone(x) for x in flatten(ctx.ref_model(*inputs))]
                fn, why = _graph_baseline(ctx, inputs, ref_flat)
                if fn is not None:
                    fns["graph"] = fn
                else:
                    notes.append("graph baseline unavailable: " + why)
                    log(notes[-1])
    fns["candidate"] = lambda: cand_model(*inputs)
    warmup, repeat = _timing_counts(req, on_gpu)
    failed_in = []
    try:
        times = timing.time_interleaved(fns, ctx.device, warmup, repeat, on_call_error=failed_in.append)
    except BaseException as e:
        if failed_in and failed_in[0] != "candidate":
            traceback.print_exc()
            raise Failure("internal_error", "the %s baseline failed while timing: %s" % (failed_in[0], one_line(e)))
        fail(e)
    for name, samples in times.items():
        res[name] = timing.stats(samples)
    if checks and res["candidate"]["median_ms"]:
        base = res["graph"] if res["graph"]["samples"] else res["eager"]
        if base["samples"]:
            checks.note_speedup(base["median_ms"] / res["candidate"]["median_ms"],
                                "CUDA-graph" if base is res["graph"] else "eager",
                                float(req.get("plausible_speedup", 10.0)))

    res["status"] = "ok"
    summary = "correct in %d trials (max abs err %.3g)" % (n_trials, max_abs if max_abs is not None else 0.0)
    if res["eager"]["samples"]:
        summary += "; %.2fx vs eager" % (res["eager"]["median_ms"] / res["candidate"]["median_ms"])
    if res["graph"]["samples"]:
        summary += ", %.2fx vs CUDA graph" % (res["graph"]["median_ms"] / res["candidate"]["median_ms"])
    if not on_gpu:
        summary += " (CPU timings)"
    res["reason"] = "; ".join([summary] + notes)

    # --- profiling ----------------------------------------------------------------------------
    if req.get("profile"):
        ctx.set_phase("profiling")
        from .profile import profile_candidate

        res["profile"], res["profile_note"] = profile_candidate(req, on_gpu)


class _fp32_random_draws:
    """While the (trusted) fp64 reference runs, torch.randn/rand asked for float64 draw float32 and
    cast, so a task drawing random numbers in forward (35_LSTM's h0/c0) sees the same numbers as in
    the fp32 runs. Used only around the reference, never around the candidate."""

    NAMES = ("randn", "rand")

    def __enter__(self):
        self.m_saved = {n: getattr(torch, n) for n in self.NAMES}
        for n, fn in self.m_saved.items():
            setattr(torch, n, self._wrap(fn))
        return self

    def __exit__(self, *exc):
        for n, fn in self.m_saved.items():
            setattr(torch, n, fn)
        return False

    @staticmethod
    def _wrap(fn):
        def draw(*args, **kwargs):
            if kwargs.get("dtype") == torch.float64:
                kwargs["dtype"] = torch.float32
                return fn(*args, **kwargs).double()
            return fn(*args, **kwargs)

        return draw


def _err64(ref64, flat):
    worst = 0.0
    for r, c in zip(ref64, flat):
        if isinstance(r, torch.Tensor) and isinstance(c, torch.Tensor) and r.shape == c.shape and r.numel():
            d = float((c.detach().double().to(r.device) - r).abs().max())
            worst = d if math.isnan(d) else max(worst, d)
    return worst


def _equal_nan(a, b):
    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
        return a.shape == b.shape and bool(torch.equal(torch.nan_to_num(a), torch.nan_to_num(b)))
    return True
