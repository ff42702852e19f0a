# SPDX-License-Identifier: MIT
"""What the judge (judge.py) builds on: the empty result, the strict-fp32 mode, devices, output comparison,
the task's loading and the seeds of its inputs and forward calls, the timing counts, the fp64 helpers.
"""
import copy
import math
import os
import traceback

import torch

from . import timing  # first: it keeps the genuine clocks before any candidate is imported
from .failures import NO_GPU_REASON, Failure, one_line
from .loader import import_file, seed_all

FP64_TRIALS = 2  # trials also compared with an fp64 reference (enough to judge precision, cheap on CPU)


def empty_result(req):
    none_stats = timing.stats([])
    return {"status": "internal_error", "reason": "", "log_tail": "", "device": "", "on_gpu": False,
            "torch_version": torch.__version__, "trials": 0, "failing_trial": -1,
            "max_abs_err": None, "mean_abs_err": None, "max_abs_err_fp64": None,
            "atol": float(req.get("atol", 1e-4)), "rtol": float(req.get("rtol", 1e-4)),
            "candidate": dict(none_stats), "eager": dict(none_stats), "graph": dict(none_stats),
            "runtime_checks": [], "candidate_peak_bytes": -1, "reference_peak_bytes": -1, "memory_note": "",
            "profile": {}, "profile_note": "", "sandboxed": False, "sandbox_note": "", "wall_seconds": 0.0}


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


COMPARE_CHUNK = 1 << 25  # elements compared at once: a 6 GB output never needs a second full copy


def compare(ref_list, cand_list, atol, rtol, device=None, scale_rel=None):
    """Returns (kind, max_abs, mean_abs, detail) with kind "ok" | "shape" | "wrong".

    The candidate's outputs may live elsewhere (the output arena, on the CPU): both sides are moved to
    `device` (default: the reference's) a chunk at a time. `scale_rel`: an output's max abs error must also be
    at most this share of the reference's largest magnitude in it, where atol alone would hide an error that is
    a large part of outputs far smaller than atol (a big task has no fp64 check to catch it: Judge.compare)."""
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
        if r.numel() == 0:
            continue
        rf, cf = r.detach().reshape(-1), c.detach().reshape(-1)
        m, bad_nan, close, top = 0.0, False, True, 0.0
        for i in range(0, rf.numel(), COMPARE_CHUNK):
            rc = rf[i:i + COMPARE_CHUNK].to(device or rf.device)
            cc = cf[i:i + COMPARE_CHUNK].to(rc.device)
            diff = (cc.double() - rc.double()).abs()
            if bool((torch.isnan(cc) & ~torch.isnan(rc)).any()):
                bad_nan = True
            m = max(m, float(torch.nan_to_num(diff, nan=0.0).max()))
            total += float(torch.nan_to_num(diff, nan=0.0).sum())
            count += diff.numel()
            if close and not torch.allclose(cc, rc, atol=atol, rtol=rtol, equal_nan=True):
                close = False
            if scale_rel is not None and (rc.is_floating_point() or rc.is_complex()):
                top = max(top, float(torch.nan_to_num(rc.abs(), nan=0.0, posinf=0.0).max()))
            del diff, cc
        if bad_nan:
            m = math.nan
        max_abs = m if math.isnan(m) or math.isnan(max_abs) else max(max_abs, m)
        if bad_nan:
            detail = detail or "output %d has NaN where the reference has none" % k
        elif not close:
            detail = detail or ("output %d: max abs err %.3g exceeds atol %.0e + rtol %.0e x |ref|"
                                % (k, m, atol, rtol))
        elif scale_rel is not None and top > 0 and m > scale_rel * top:
            detail = detail or ("output %d: max abs err %.3g is %.2g%% of the reference's largest magnitude %.3g "
                                "(allowed: %.2g%%; within atol %.0e only because the outputs are that small)"
                                % (k, m, 100.0 * m / top, top, 100.0 * scale_rel, atol))
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


def _timing_counts(req, on_gpu):
    """CPU timing uses fewer rounds by default: a CPU figure is only a rough label."""
    warmup = req.get("warmup")
    repeat = req.get("repeat")
    if warmup is None:
        warmup = 3 if on_gpu else 1
    if repeat is None:
        repeat = 20 if on_gpu else 15
    return int(warmup), int(repeat)


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
