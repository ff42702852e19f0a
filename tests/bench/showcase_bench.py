# SPDX-License-Identifier: MIT
"""Benchmark of the showcase recurrent kernels on a CUDA GPU (the candidates make_showcase.py generates
from resources/showcase/_body.py and cluster_rnn.cu, written afresh from the sources by this script).

Per task it prints: eager ms, CUDA-graph ms (the same cuDNN call captured in a graph), candidate
ms (median and p10-p90 spread), the speedup against each, and the max abs error against the
strict-fp32 reference (TF32 off) and an fp64 reference. Timing is this script's own: CUDA events on the current stream, rounds
interleaving eager -> graph -> candidate(s), a synchronize and a 256 MB L2 flush before every
timed call, one discarded round. `--variants` also sweeps kernel configurations (the candidate
module's _CFG). It writes JSON (--out) after every task, so a run cut short keeps what it did.

Usage (GPU machine):  python3 tests/bench/showcase_bench.py --out DIR [--tasks 39,40] [--reps 30]
                      [--variants] [--variant-tasks 39] [--small-only] [--worker]
--worker also runs the worker's one-shot eval mode per task (added after the measured runs; not
yet run on a GPU) and prints its table.
Not a test: it prints figures. tests/gpu/showcase_correctness.py is the pass/fail check.
"""
import argparse
import importlib.util
import json
import math
import os
import statistics
import sys
import time
import traceback

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "resources", "showcase"))
from make_showcase import candidate as showcase_candidate  # noqa: E402  (generated from the sources, not committed)
TASKS = ["39_GRU", "41_GRUBidirectional", "37_LSTMCn", "40_GRUHidden", "42_GRUBidirectionalHidden",
         "36_LSTMHn", "35_LSTM", "38_LSTMBidirectional"]

# Configurations swept with --variants: name -> _CFG overrides. "default" is the candidate's own
# _CFG (the CUDA cluster kernel); cuda_* entries are (CS CTAs per cluster, NT threads, R rows per
# cluster, MODE 0 cluster barrier / 1 st.async + mbarrier); "triton" is the Triton row kernel.
VARIANTS = {
    "gru_uni": {
        "wave_xb0": {"wave_gru": (8, 256, 5, 0)},
        "layerwise_m4": {"wave": ("lstm",)},
        "layerwise_m1": {"wave": ("lstm",), "cuda_gru_uni": (8, 256, 1, 1)},
        "triton": {"backend": "triton"},
    },
    "gru_bi": {
        "bulk_m5": {"cuda_gru_bi": (4, 512, 1, 5)},
        "two_gemms": {"bi_fused_gemm": ("lstm",)},
        "triton": {"backend": "triton"},
    },
    "lstm_uni": {
        "wave_xb0": {"wave_lstm": (8, 256, 5, 0)},
        "layerwise_m4": {"wave": ("gru",)},
        "triton": {"backend": "triton"},
    },
    "lstm_bi": {
        "stasync_m4": {"cuda_lstm_bi": (8, 256, 2, 4)},
        "two_gemms": {"bi_fused_gemm": ("gru",)},
        "triton": {"backend": "triton"},
    },
}


def cuda_instances(variants):
    """(G, CS, NT, R, MODE) of every cuda_* override."""
    out = []
    for over in variants.values():
        for key, val in over.items():
            if key.startswith("cuda_"):
                out.append((3 if "gru" in key else 4,) + tuple(val))
    return out


# One instance set for every task, variant and probe: one build of the extension, cached on disk
# by torch, serves them all (a different set is a different source, hence a new ~60 s build).
# (The candidate adds its own _CFG defaults to these itself, the same in every task file.)
PROBE_INSTANCES = [(g, 8, 256, 1, m) for g in (3, 4) for m in range(5)] + [(4, 8, 256, 2, 1), (3, 8, 256, 2, 1)]
ALL_WAVE = [(g, 8, 256, 5, xb) for g in (3, 4) for xb in (0, 1)]
ALL_INSTANCES = sorted(set(cuda_instances({f + k: v for f, fam in VARIANTS.items() for k, v in fam.items()})
                           + PROBE_INSTANCES))


def load_module(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def family(task):
    cell = "gru" if "GRU" in task else "lstm"
    return cell + ("_bi" if "Bidirectional" in task else "_uni")


def make_inputs(task, task_mod, seed, small):
    """The task's own get_inputs() on a fresh seed; `small` keeps 16 steps and 2 layers."""
    torch.manual_seed(seed)
    xs = [t.cuda() for t in task_mod.get_inputs()]
    if small:
        x = xs[0]
        batch_first = "LSTM" in task
        xs[0] = (x[:, :16] if batch_first else x[:16]).contiguous()
        dirs = 2 if "Bidirectional" in task else 1
        xs[1:] = [h[:2 * dirs].contiguous() for h in xs[1:]]
    return xs


def init_args(task_mod, small):
    args = list(task_mod.get_init_inputs())
    if small:
        args[2] = 2  # num_layers
    return args


def build(task_mod, cand_mod, small, double=False):
    args = init_args(task_mod, small)
    torch.manual_seed(42)
    ref = task_mod.Model(*args).cuda()
    torch.manual_seed(42)
    cand = cand_mod.ModelNew(*args).cuda()
    for (n1, p1), (n2, p2) in zip(ref.named_parameters(), cand.named_parameters()):
        assert n1 == n2 and torch.equal(p1, p2), "parameters differ: %s vs %s" % (n1, n2)
    if double:
        ref = ref.double()
    return ref.eval(), cand.eval()


def call(model, xs, rng_seed):
    # 35_LSTM draws h0/c0 inside forward: the same CUDA RNG state for both models.
    torch.manual_seed(rng_seed)
    with torch.no_grad():
        return model(*xs)


def check_counters(cand_mod):
    last = getattr(cand_mod, "_LAST", {})
    if "wave_err" in last:
        return int(last["wave_err"].item()) == -1  # the kernel's "no spin timed out"
    if "cnt" not in last:
        return None
    heads = last["cnt"].view(-1, 32)[:, 0]
    return bool((heads == last["expect"]).all().item())


def correctness(task, task_mod, cand_mod, small, trials):
    """Max abs error vs strict fp32 and fp64, allclose at 1e-4, repeat-determinism (a moving
    result on identical inputs means a race), barrier counter sanity."""
    ref, cand = build(task_mod, cand_mod, small)
    ref64, _ = build(task_mod, cand_mod, small, double=True)
    res = {"max_err_fp32": 0.0, "max_err_fp64": 0.0, "allclose": True, "deterministic": True,
           "counters_ok": True, "ref_vs_fp64": 0.0}
    for trial in range(trials):
        xs = make_inputs(task, task_mod, 1000 + trial, small)
        y_ref = call(ref, xs, 7 + trial)
        out_poison = call(cand, xs, 7 + trial)
        y = out_poison.clone()
        res["counters_ok"] = res["counters_ok"] and (check_counters(cand_mod) is not False)
        y2 = call(cand, xs, 7 + trial)
        if task.startswith("35_"):
            # fp64 needs the same h0/c0: draw them as the forward would, pass them explicitly.
            torch.manual_seed(7 + trial)
            L = init_args(task_mod, small)[2]
            h0 = torch.randn(L, xs[0].size(0), 256, device="cuda")
            c0 = torch.randn(L, xs[0].size(0), 256, device="cuda")
            y64 = call(ref64, [xs[0].double(), h0.double(), c0.double()], 0)
        else:
            y64 = call(ref64, [t.double() for t in xs], 7 + trial)
        assert y.shape == y_ref.shape, "shape %s vs %s" % (tuple(y.shape), tuple(y_ref.shape))
        e32 = (y - y_ref).abs().max().item()
        e64 = (y.double() - y64).abs().max().item()
        r64 = (y_ref.double() - y64).abs().max().item()
        if not math.isfinite(e32):
            e32 = float("inf")
        res["max_err_fp32"] = max(res["max_err_fp32"], e32)
        res["max_err_fp64"] = max(res["max_err_fp64"], e64)
        res["ref_vs_fp64"] = max(res["ref_vs_fp64"], r64)
        res["allclose"] = res["allclose"] and bool(torch.allclose(y, y_ref, atol=1e-4, rtol=1e-4))
        res["deterministic"] = res["deterministic"] and bool(torch.equal(y, y2))
    return res


class Flusher:
    def __init__(self):
        self.buf = torch.empty(256 * 1024 * 1024 // 4, dtype=torch.int32, device="cuda")

    def flush(self):
        self.buf.zero_()


def capture_graph(model, xs):
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.no_grad(), torch.cuda.stream(side):
        for _ in range(3):
            model(*xs)
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.no_grad(), torch.cuda.graph(g):
        model(*xs)
    torch.cuda.synchronize()
    return g


def time_interleaved(fns, reps, warmup=3):
    fl = Flusher()
    with torch.no_grad():
        for f in fns.values():
            for _ in range(warmup):
                f()
    torch.cuda.synchronize()
    times = {k: [] for k in fns}
    for rnd in range(reps + 1):
        for k, f in fns.items():
            torch.cuda.synchronize()
            fl.flush()
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            with torch.no_grad():
                s.record()
                f()
                e.record()
            torch.cuda.synchronize()
            if rnd > 0:
                times[k].append(s.elapsed_time(e))
    return times


def summary(ms):
    ms = sorted(ms)
    n = len(ms)
    q = lambda p: ms[min(n - 1, max(0, int(round(p * (n - 1)))))]
    mean = statistics.fmean(ms)
    return {"median": statistics.median(ms), "p10": q(0.1), "p90": q(0.9), "min": ms[0], "max": ms[-1],
            "cv": (statistics.stdev(ms) / mean) if n > 1 else 0.0, "n": n}


def run_task(task, args, results):
    task_mod = load_module(os.path.join(ROOT, "tasks", "level3", task + ".py"), "task_" + task[:2])
    cand_mod = load_module(showcase_candidate(task), "cand_" + task[:2])
    base_cfg = dict(cand_mod._CFG)
    variants = {"default": {}}
    if args.variants and (not args.variant_tasks or task[:2] in args.variant_tasks.split(",")):
        variants.update(VARIANTS[family(task)])
    if hasattr(cand_mod, "_CUDA_EXTRA"):
        cand_mod._CUDA_EXTRA[:] = ALL_INSTANCES
        cand_mod._WAVE_EXTRA[:] = ALL_WAVE
    entry = {"task": task, "variants": {}}
    results[task] = entry
    ok_variants = []
    for vname, over in variants.items():
        cand_mod._CFG.clear()
        cand_mod._CFG.update(base_cfg)
        cand_mod._CFG.update(over)
        ventry = {"cfg": {k: cand_mod._CFG[k] for k in cand_mod._CFG}}
        entry["variants"][vname] = ventry
        try:
            t0 = time.time()
            ventry["small"] = correctness(task, task_mod, cand_mod, True, 2)
            ventry["compile_and_small_s"] = time.time() - t0
            if not args.small_only:
                ventry["full"] = correctness(task, task_mod, cand_mod, False, args.trials)
                ventry["regs_spills"] = cand_mod._LAST.get("regs")
                ok_variants.append(vname)
        except Exception as exc:  # a variant that does not compile must not stop the others
            ventry["error"] = "%s: %s" % (type(exc).__name__, exc)
            ventry["traceback"] = traceback.format_exc()[-3000:]
            print("[%s/%s] ERROR %s" % (task, vname, ventry["error"]), flush=True)
        print("[%s/%s] %s" % (task, vname, json.dumps({k: v for k, v in ventry.items()
                                                      if k in ("small", "full")})), flush=True)
    cand_mod._CFG.clear()
    cand_mod._CFG.update(base_cfg)
    if args.small_only or not ok_variants:
        return
    ref, cand = build(task_mod, cand_mod, False)
    xs = make_inputs(task, task_mod, 5, False)
    graph = capture_graph(ref, xs)
    fns = {"eager": lambda: ref(*xs), "graph": graph.replay}

    def make_fn(over):
        def fn():
            cand_mod._CFG.clear()
            cand_mod._CFG.update(base_cfg)
            cand_mod._CFG.update(over)
            return cand(*xs)
        return fn

    for vname in ok_variants:
        fns["cand:" + vname] = make_fn(variants[vname])
    times = time_interleaved(fns, args.reps)
    entry["timing"] = {k: summary(v) for k, v in times.items()}
    entry["timing_method"] = "own CUDA events, interleaved rounds, L2 flush 256 MB, 1 discarded round"
    cand_mod._CFG.clear()
    cand_mod._CFG.update(base_cfg)


def worker_eval(task, reps):
    """The evaluator's own figures: `kwb_worker.py eval TASK CANDIDATE --device cuda --json`
    (correctness vs strict fp32 and fp64, interleaved timing with L2 flush, integrity checks)."""
    import subprocess
    cmd = [sys.executable, os.path.join(ROOT, "core", "eval", "worker", "kwb_worker.py"), "eval",
           os.path.join(ROOT, "tasks", "level3", task + ".py"),
           showcase_candidate(task),
           "--device", "cuda", "--json", "--repeat", str(reps)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    try:
        res = json.loads(proc.stdout)
    except ValueError:
        return {"status": "no_json", "rc": proc.returncode, "stderr_tail": proc.stderr[-2000:]}
    res = res.get("result", res)
    keep = ("status", "reason", "max_abs_err", "max_abs_err_fp64", "candidate", "eager", "graph",
            "runtime_checks")
    return {k: res.get(k) for k in keep}


def worker_table(results):
    rows = ["| task | status | eager ms | graph ms | candidate ms | vs eager | vs graph | max err fp32 | "
            "max err fp64 |", "|---|---|---|---|---|---|---|---|---|"]
    for task, e in results.items():
        w = e.get("worker")
        if not w:
            continue
        med = lambda k: (w.get(k) or {}).get("median_ms")
        c, eg, gr = med("candidate"), med("eager"), med("graph")
        f = lambda x: ("%.3f" % x) if isinstance(x, (int, float)) else "-"
        e_ = lambda x: ("%.2e" % x) if isinstance(x, (int, float)) else "-"
        rows.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            task, w.get("status"), f(eg), f(gr), f(c), ("%.2fx" % (eg / c)) if c and eg else "-",
            ("%.2fx" % (gr / c)) if c and gr else "-", e_(w.get("max_abs_err")), e_(w.get("max_abs_err_fp64"))))
    return "\n".join(rows)


def table(results):
    rows = ["| task | variant | eager ms | graph ms | candidate ms (p10-p90) | vs eager | vs graph | "
            "max err fp32 | max err fp64 | ok |", "|---|---|---|---|---|---|---|---|---|---|"]
    for task, e in results.items():
        tm = e.get("timing", {})
        eg = tm.get("eager", {}).get("median")
        gr = tm.get("graph", {}).get("median")
        for vname, v in e["variants"].items():
            c = tm.get("cand:" + vname)
            full = v.get("full", {})
            ok = ("ERR" if "error" in v else
                  ("yes" if full.get("allclose") and full.get("deterministic") and full.get("counters_ok")
                   else "NO"))
            fmt = lambda x: ("%.3f" % x) if isinstance(x, float) else "-"
            rows.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                task, vname, fmt(eg), fmt(gr),
                ("%.3f (%.3f-%.3f)" % (c["median"], c["p10"], c["p90"])) if c else "-",
                ("%.2fx" % (eg / c["median"])) if c and eg else "-",
                ("%.2fx" % (gr / c["median"])) if c and gr else "-",
                ("%.2e" % full["max_err_fp32"]) if "max_err_fp32" in full else "-",
                ("%.2e" % full["max_err_fp64"]) if "max_err_fp64" in full else "-", ok))
    return "\n".join(rows)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tasks", default="")
    ap.add_argument("--reps", type=int, default=30)
    ap.add_argument("--trials", type=int, default=3)
    ap.add_argument("--variants", action="store_true")
    ap.add_argument("--variant-tasks", default="", help="tasks to sweep with --variants (default all)")
    ap.add_argument("--small-only", action="store_true")
    ap.add_argument("--out", default="")
    ap.add_argument("--worker", action="store_true",
                    help="also run the worker's one-shot eval per task and print its table")
    args = ap.parse_args()
    if args.out:
        os.makedirs(args.out, exist_ok=True)
    if not torch.cuda.is_available():
        print("showcase_bench: no CUDA device; nothing to measure")
        return 0
    # The strict-fp32 ground truth: TF32 off (cuDNN's default TF32 RNN fails 1e-4 by itself).
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    import triton
    meta = {"gpu": torch.cuda.get_device_name(), "torch": torch.__version__, "triton": triton.__version__,
            "sms": torch.cuda.get_device_properties(0).multi_processor_count,
            "cudnn": torch.backends.cudnn.version()}
    print(json.dumps(meta), flush=True)
    wanted = [t for t in TASKS if not args.tasks or t.split("_")[0] in args.tasks.split(",")]
    results = {}
    for task in wanted:
        t0 = time.time()
        try:
            run_task(task, args, results)
        except Exception as exc:
            results.setdefault(task, {"task": task, "variants": {}})["error"] = traceback.format_exc()[-3000:]
            print("[%s] FAILED %s" % (task, exc), flush=True)
        if args.worker:
            try:
                results.setdefault(task, {"task": task, "variants": {}})["worker"] = worker_eval(task, args.reps)
            except Exception as exc:
                results[task]["worker"] = {"status": "bench_error", "reason": str(exc)}
        print("[%s] %.1f s" % (task, time.time() - t0), flush=True)
        if args.out:
            with open(os.path.join(args.out, "showcase.json"), "w") as f:
                json.dump({"meta": meta, "results": results}, f, indent=1)
    print(table(results))
    if args.worker:
        print("\nWorker one-shot eval (kwb_worker.py eval --device cuda --json):")
        print(worker_table(results))
    if args.out:
        with open(os.path.join(args.out, "table.md"), "w") as f:
            f.write(table(results) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
