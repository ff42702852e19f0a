# SPDX-License-Identifier: MIT
"""Command line of the worker.

  serve                         the protocol (PROTOCOL.md): ready event, one request, events, exit
  eval TASK CANDIDATE [opts]    one evaluation, printed as text or --json (runs `serve` in a child)
  baseline TASK [opts]          the reference's timings
  detect TASK CANDIDATE         static verdicts of kwb_worker.detect (never imports the candidate)
  profile-target TASK CANDIDATE the process Nsight Compute profiles (internal)

Exit codes of eval/baseline/detect: 0 ok, 1 the candidate failed (any other status), 2 usage error,
internal error or protocol error.
"""
import argparse
import json
import os
import platform
import sys
import time
import traceback

from . import PROTOCOL_VERSION
from .channel import dumps, emit, log, set_key, take_stdout

OPS = ("eval", "baseline", "detect")


def _ready_info():
    import torch

    triton_version = None
    try:
        import triton

        triton_version = getattr(triton, "__version__", "unknown")
    except Exception:
        pass
    cuda = bool(torch.cuda.is_available())
    info = {"event": "ready", "pid": os.getpid(), "python": platform.python_version(),
            "torch": torch.__version__, "triton": triton_version, "cuda": cuda,
            "device": "cuda" if cuda else "cpu", "gpu_name": None, "sm_count": 0}
    if cuda:
        props = torch.cuda.get_device_properties(0)
        info["gpu_name"] = props.name
        info["sm_count"] = props.multi_processor_count
    return info


def _triton_version():
    try:
        import triton

        return getattr(triton, "__version__", None)
    except Exception:
        return None


def _detect(task_file, candidate_file, sm_count=0, triton_version=None):
    """Verdict list from kwb_worker.detect.run_detectors, or raises RuntimeError if it is missing.

    sm_count 0 means unknown: the detectors' own default applies."""
    try:
        from .detect import run_detectors
    except ImportError as e:
        raise RuntimeError("static detectors unavailable (kwb_worker.detect.run_detectors: %s)" % e)
    with open(task_file, encoding="utf-8", errors="replace") as f:
        task_source = f.read()
    with open(candidate_file, encoding="utf-8", errors="replace") as f:
        candidate_source = f.read()
    kwargs = {"triton_version": triton_version}
    if sm_count:
        kwargs["sm_count"] = int(sm_count)
    return run_detectors(task_source, candidate_source, **kwargs)


def _validate(req):
    if not isinstance(req, dict):
        return "request is not a JSON object"
    if req.get("v") != PROTOCOL_VERSION:
        return "unsupported protocol version %r (this worker speaks %d)" % (req.get("v"), PROTOCOL_VERSION)
    key = req.get("key")
    if key is not None and (not isinstance(key, str) or len(key) < 32 or any(ch not in "0123456789abcdef" for ch in key)):
        return "key must be at least 32 lowercase hex digits"
    op = req.get("op")
    if op not in OPS:
        return "unknown op %r" % op
    need = {"eval": ("task_file", "candidate_file"), "baseline": ("task_file",),
            "detect": ("task_file", "candidate_file")}[op]
    for key in need:
        if not isinstance(req.get(key), str) or not req[key]:
            return "missing %s" % key
        if not os.path.isfile(req[key]):
            return "%s not found: %s" % (key, req[key])
    return None


def handle(req, phase_emit):
    """Runs one validated request; returns the final event dict (without v/id)."""
    op = req["op"]
    if op == "detect":
        verdicts = _detect(req["task_file"], req["candidate_file"], int(req.get("gpu_sm_count") or 0),
                           _triton_version())
        return {"event": "result", "verdicts": verdicts}
    from . import judge

    if req.get("scratch_dir") and os.path.isdir(req["scratch_dir"]):
        os.chdir(req["scratch_dir"])
    t0 = time.time()
    fn = judge.run_eval if op == "eval" else judge.run_baseline
    result = fn(req, phase_emit)
    result["wall_seconds"] = time.time() - t0
    return {"event": "result", "result": result}


def _end_on_signals(judge):
    """SIGTERM, SIGINT, SIGHUP end the evaluation at once: the candidate's processes are killed whole (the
    watchdog finishes what is left) and the judge exits, whatever it was waiting for."""
    import signal

    def end(signum, _frame):
        try:
            judge.abort()
        finally:
            os._exit(128 + signum)

    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, end)


def _warm_cuda():
    """The judge's CUDA context, made while no request waits for it (a second or more on a GPU machine)."""
    try:
        import torch

        if torch.cuda.is_available():
            torch.zeros(1, device="cuda").add_(1)
            torch.cuda.synchronize()
    except Exception as e:
        log("CUDA warm-up failed: %s" % e)


def serve():
    take_stdout()
    from .runnerclient import die_with_parent, protect_judge

    die_with_parent()  # a host that dies, however, takes its judge with it
    protected = protect_judge()
    from .timing import steady_allocator

    steady_allocator()
    try:
        ready = _ready_info()
    except BaseException as e:
        traceback.print_exc()
        emit({"event": "error", "message": "worker cannot start: %s: %s" % (type(e).__name__, e)})
        return 2
    emit(ready)
    if not protected:
        log("warning: the judge could not make itself undumpable (prctl)")
    from . import judge

    _end_on_signals(judge)
    judge.prestart_runner()  # the runners import torch while we wait for the request
    _warm_cuda()
    try:
        return _serve_one(judge)
    finally:
        judge.drop_prestarted_runner()  # no request, a bad one: the unused runners (and their cgroups) go


def _serve_one(judge):
    line = sys.stdin.readline()
    if not line.strip():
        log("no request on stdin; exiting")
        return 0
    try:
        req = json.loads(line)
    except ValueError as e:
        emit({"event": "error", "message": "bad request: not JSON: %s" % e})
        return 2
    rid = req.get("id") if isinstance(req, dict) else None
    problem = _validate(req)
    if not problem and req.get("key"):
        set_key(req.pop("key"))
    if problem:
        emit({"id": rid, "event": "error", "message": "bad request: " + problem})
        return 2
    log("request %s: %s" % (rid, req.get("op")))
    try:
        final = handle(req, lambda name: emit({"id": rid, "event": "phase", "phase": name}))
    except RuntimeError as e:  # detectors missing
        emit({"id": rid, "event": "error", "message": str(e)})
        return 2
    except BaseException as e:
        traceback.print_exc()
        emit({"id": rid, "event": "error", "message": "internal error: %s: %s" % (type(e).__name__, e)})
        return 2
    final = dict({"id": rid}, **final)
    emit(final)
    sys.stderr.flush()
    # A candidate's threads or a wedged CUDA context must not keep the process alive after the answer.
    os._exit(0)


def _common(p):
    p.add_argument("--device", default="auto", choices=("auto", "cpu", "cuda"))
    p.add_argument("--warmup", type=int, default=None, help="warm-up calls (default 3 on GPU, 1 on CPU)")
    p.add_argument("--repeat", type=int, default=None,
                   help="timed rounds (default: the judge's count, 20 on a GPU, 15-45 on a CPU by the task's speed)")
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--no-graph", action="store_true", help="skip the CUDA-graph baseline")
    p.add_argument("--json", action="store_true", help="print the result object as JSON")
    p.add_argument("--compile-timeout", type=float, default=600.0)
    p.add_argument("--run-timeout", type=float, default=600.0)
    p.add_argument("--in-process", action="store_true",
                   help="evaluate in this process instead of a child (no crash/timeout protection)")
    p.add_argument("--verbose", "-v", action="store_true", help="echo the worker's log to stderr")


def _parser():
    p = argparse.ArgumentParser(prog="kwb_worker.py", description="Kernel Workbench evaluation worker")
    sub = p.add_subparsers(dest="mode", required=True)
    sub.add_parser("serve", help="the JSON-lines protocol on stdio (one request)")
    e = sub.add_parser("eval", help="evaluate CANDIDATE against TASK")
    e.add_argument("task")
    e.add_argument("candidate")
    _common(e)
    e.add_argument("--trials", type=int, default=5)
    e.add_argument("--atol", type=float, default=1e-4)
    e.add_argument("--rtol", type=float, default=1e-4)
    e.add_argument("--profile", action="store_true", help="profile under Nsight Compute (GPU)")
    e.add_argument("--no-integrity", action="store_true", help="skip the run-time integrity checks")
    e.add_argument("--plausible-speedup", type=float, default=10.0)
    b = sub.add_parser("baseline", help="time TASK's reference")
    b.add_argument("task")
    _common(b)
    d = sub.add_parser("detect", help="static detector verdicts")
    d.add_argument("task")
    d.add_argument("candidate")
    d.add_argument("--sm-count", type=int, default=0)
    d.add_argument("--json", action="store_true")
    r = sub.add_parser("runner", help=argparse.SUPPRESS)
    r.add_argument("--fd", type=int, required=True)
    t = sub.add_parser("profile-target", help=argparse.SUPPRESS)
    t.add_argument("task")
    t.add_argument("candidate")
    t.add_argument("--seed", type=int, default=42)
    t.add_argument("--calls", type=int, default=3)
    return p


def _fmt_stats(name, s):
    if not s or not s.get("samples"):
        return "  %-9s -" % name
    return "  %-9s median %.4f ms  mean %.4f  std %.4f  min %.4f  max %.4f  cv %.1f%%  (n=%d)" % (
        name, s["median_ms"], s["mean_ms"], s["std_ms"], s["min_ms"], s["max_ms"], 100.0 * (s["cv"] or 0),
        s["samples"])


def _print_result(r, out):
    out.write("status:   %s\nreason:   %s\ndevice:   %s\n" % (r.get("status"), r.get("reason"), r.get("device")))
    if r.get("trials"):
        out.write("trials:   %d (failing: %s)  max abs err %s  mean %s  vs fp64 %s\n" % (
            r["trials"], r.get("failing_trial"), r.get("max_abs_err"), r.get("mean_abs_err"),
            r.get("max_abs_err_fp64")))
    for name in ("eager", "graph", "candidate"):
        if r.get(name, {}).get("samples"):
            out.write(_fmt_stats(name, r[name]) + "\n")
    for v in r.get("runtime_checks", []):
        out.write("  [%s/%s] %s: %s\n" % (v["outcome"], v["severity"], v["detector"], v["summary"]))
    if r.get("profile"):
        for k, v in sorted(r["profile"].items()):
            out.write("  profile %s = %s\n" % (k, v))
    if r.get("profile_note"):
        out.write("profile:  %s\n" % r["profile_note"])
    if r.get("status") not in ("ok",) and r.get("log_tail"):
        out.write("log tail:\n" + "\n".join("  | " + l for l in r["log_tail"].splitlines()[-15:]) + "\n")


def _one_shot(args):
    op = args.mode
    req = {"v": PROTOCOL_VERSION, "id": "cli", "op": op, "task_file": os.path.abspath(args.task),
           "device": args.device, "warmup": args.warmup, "repeat": args.repeat, "seed": args.seed,
           "graph_baseline": not args.no_graph, "scratch_dir": os.getcwd()}
    if op == "eval":
        req.update({"candidate_file": os.path.abspath(args.candidate), "trials": args.trials,
                    "atol": args.atol, "rtol": args.rtol, "baselines": True, "profile": args.profile,
                    "integrity": not args.no_integrity, "plausible_speedup": args.plausible_speedup})
    req = {k: v for k, v in req.items() if v is not None}
    problem = _validate(req)
    if problem:
        sys.stderr.write("kwb_worker: %s\n" % problem)
        return 2
    if args.in_process:
        real_out = take_stdout()
        final = handle(req, lambda name: log("phase", name))
        result = final["result"]
    else:
        from .host import run_request

        real_out = sys.stdout

        def on_event(ev):
            if ev.get("event") == "phase" and args.verbose:
                sys.stderr.write("[phase] %s\n" % ev["phase"])

        final, _ = run_request(req, args.compile_timeout, args.run_timeout, echo_log=args.verbose,
                               on_event=on_event)
        if final.get("event") == "error":
            sys.stderr.write("kwb_worker: %s\n" % final.get("message"))
            return 2
        result = final["result"]
    if args.json:
        real_out.write(dumps(result) + "\n")
    else:
        _print_result(result, real_out)
    real_out.flush()
    st = result.get("status")
    return 0 if st == "ok" else (2 if st == "internal_error" else 1)


def main(argv):
    args = _parser().parse_args(argv)
    if args.mode == "serve":
        return serve()
    if args.mode == "runner":
        from .runner import main as runner_main

        return runner_main(args.fd)
    if args.mode == "profile-target":
        from .profile import profile_target

        take_stdout()
        return profile_target(os.path.abspath(args.task), os.path.abspath(args.candidate), args.seed, args.calls)
    if args.mode == "detect":
        try:
            verdicts = _detect(args.task, args.candidate, args.sm_count, _triton_version())
        except RuntimeError as e:
            sys.stderr.write("kwb_worker: %s\n" % e)
            return 2
        if args.json:
            sys.stdout.write(dumps(verdicts) + "\n")
        else:
            for v in verdicts:
                sys.stdout.write("[%s/%s] %s: %s\n" % (v.get("outcome"), v.get("severity"), v.get("detector"),
                                                      v.get("summary")))
        return 0
    return _one_shot(args)
