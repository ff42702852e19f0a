#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The generated showcase candidates against the committed files they replace, through the judge (device
machine; not run by CI). Since issue 26 the eight candidates are build outputs of
resources/showcase/make_showcase.py; until 2465f8d they were committed. This check generates 39_GRU,
41_GRUBidirectional and 35_LSTM (the unidirectional GRU wavefront, the bidirectional GRU layer kernel, the
LSTM with its linear head and its own h0/c0 draws) with make_showcase.py into a temporary folder and
evaluates them and the files as committed at 2465f8d, interleaved old, new, new, old per task, each with
`core/eval/worker/kwb_worker.py eval TASK CANDIDATE --device cuda --json`. It prints a row per evaluation
(x eager, x graph, status, flags), then per task the generated candidate's x graph against the old file's
(mean of each side's evaluations; they must agree within 5%), and writes everything under --out.

Here, in a checkout with git history (the device gets the working tree without .git), once:
    python3 tests/gpu/showcase_generated_check.py extract [--rev 2465f8d]
writes .device/old_showcase/<task>.py (ignored by git; carry that folder to the device). Then on the device:
    python3 tests/gpu/showcase_generated_check.py run --out "$OUT"
Exit status 0 when every evaluation is ok without an error/critical flag and every task agrees within 5%.
"""
import argparse
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from gpu_runs import ROOT, flags, speedup  # noqa: E402
from prebuild_showcase import ONE as PREBUILD_ONE  # noqa: E402

TASKS = ["39_GRU", "41_GRUBidirectional", "35_LSTM"]
ALL_TASKS = ["35_LSTM", "36_LSTMHn", "37_LSTMCn", "38_LSTMBidirectional", "39_GRU", "40_GRUHidden",
             "41_GRUBidirectional", "42_GRUBidirectionalHidden"]
OLD_DIR = os.path.join(ROOT, ".device", "old_showcase")
WORKER = os.path.join(ROOT, "core", "eval", "worker", "kwb_worker.py")
GENERATOR = os.path.join(ROOT, "resources", "showcase", "make_showcase.py")
TOLERANCE = 0.05


def sha(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()[:16]


def extract(a):
    """The committed candidates of a revision, from git (run where the history is)."""
    os.makedirs(a.old, exist_ok=True)
    for t in ALL_TASKS:
        text = subprocess.run(["git", "-C", ROOT, "show", "%s:resources/showcase/%s.py" % (a.rev, t)],
                              stdout=subprocess.PIPE, check=True).stdout
        with open(os.path.join(a.old, t + ".py"), "wb") as f:
            f.write(text)
    with open(os.path.join(a.old, "SOURCE"), "w") as f:
        f.write("git show %s:resources/showcase/<task>.py\n" % a.rev)
    print("extract: %d candidates of %s in %s" % (len(ALL_TASKS), a.rev, a.old))
    return 0


def prebuild(pairs, ext_dir, log):
    """Builds the CUDA extensions of the given (task, candidate) pairs in parallel into the shared folder the
    evaluations' runners use (trusted kernels of ours), then makes it writable for the runner's user id.
    It runs to the end before any evaluation: a runner must never meet a half-built folder."""
    os.makedirs(ext_dir, exist_ok=True)
    t0 = time.time()
    procs = [subprocess.Popen([sys.executable, "-c", PREBUILD_ONE, os.path.join(ROOT, "tasks", "level3", t + ".py"),
                               cand]) for t, cand in pairs]
    codes = []
    for p in procs:
        try:
            codes.append(p.wait(timeout=max(1.0, 300.0 - (time.time() - t0))))
        except subprocess.TimeoutExpired:
            p.kill()
            codes.append(p.wait())
    subprocess.run(["chmod", "-R", "a+rwX", ext_dir])
    log("prebuild: %d/%d extensions built and ran in %.0f s (%s)" % (codes.count(0), len(codes), time.time() - t0,
                                                                  ext_dir))


def evaluate(task, cand, timeout):
    """One `kwb_worker.py eval --json`, in a scratch folder of its own; the result dict plus _wall."""
    scratch = tempfile.mkdtemp(prefix="kwb-gencheck-")
    os.chmod(scratch, 0o755)
    t0 = time.time()
    try:
        p = subprocess.run([sys.executable, WORKER, "eval", os.path.join(ROOT, "tasks", "level3", task + ".py"), cand,
                            "--device", "cuda", "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True, timeout=timeout, cwd=scratch)
        lines = p.stdout.strip().splitlines()
        r = json.loads(lines[-1]) if lines else {"status": "no_result", "reason": p.stderr[-300:].replace("\n", " ")}
    except subprocess.TimeoutExpired:
        r = {"status": "timeout", "reason": "over %.0f s" % timeout}
    except ValueError:
        r = {"status": "no_result", "reason": (p.stderr or "")[-300:].replace("\n", " ")}
    shutil.rmtree(scratch, ignore_errors=True)
    r.setdefault("runtime_checks", [])
    r["_wall"] = time.time() - t0
    return r


def run(a):
    t0 = time.time()
    os.makedirs(a.out, exist_ok=True)
    report = open(os.path.join(a.out, "showcase_generated_check.txt"), "w")

    def log(line=""):
        print(line, flush=True)
        report.write(line + "\n")
        report.flush()

    tasks = a.tasks.split(",")
    missing = [t for t in tasks if not os.path.exists(os.path.join(a.old, t + ".py"))]
    if missing:
        sys.exit("run: no old candidate for %s in %s: run `%s extract` where the git history is, and carry "
                 "the folder" % (", ".join(missing), a.old, os.path.relpath(__file__, ROOT)))
    work = tempfile.mkdtemp(prefix="kwb-showcase-check-")
    os.chmod(work, 0o755)
    new_dir, old_dir = os.path.join(work, "new"), os.path.join(work, "old")
    subprocess.run([sys.executable, GENERATOR, "--out", new_dir], check=True)
    os.makedirs(old_dir)
    for t in tasks:
        shutil.copy(os.path.join(a.old, t + ".py"), os.path.join(old_dir, t + ".py"))
    src = open(os.path.join(a.old, "SOURCE")).read().strip() if os.path.exists(os.path.join(a.old, "SOURCE")) else a.old
    try:
        gpu = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, universal_newlines=True).stdout.strip()
    except OSError:
        gpu = "no nvidia-smi"
    # Old and new alternate, mirrored every round (old, new, new, old, ...): a drift of the machine during
    # a task's evaluations weighs on both sides alike.
    order = [w for i in range(a.rounds) for w in (("old", "new") if i % 2 == 0 else ("new", "old"))]
    log("# Generated showcase candidates (make_showcase.py of %s) against the committed ones (%s)" % (a.commit, src))
    log("# %s, %s; each through kwb_worker.py eval --device cuda --json; per task %s" % (
        gpu, time.strftime("%Y-%m-%d %H:%M"), ", ".join(order)))
    cands = {}
    for t in tasks:
        cands[t] = {"old": os.path.join(old_dir, t + ".py"), "new": os.path.join(new_dir, t + ".py")}
        same = sha(cands[t]["old"]) == sha(cands[t]["new"])
        log("# %-26s old %s  new %s  %s" % (t, sha(cands[t]["old"]), sha(cands[t]["new"]),
                                          "byte-identical" if same else "DIFFERENT BYTES"))

    ext_dir = a.extensions_dir
    os.environ["TORCH_EXTENSIONS_DIR"] = ext_dir
    os.environ["KWB_SHARED_EXTENSIONS_DIR"] = ext_dir
    pairs = [(t, cands[t]["new"]) for t in tasks] + \
        [(t, cands[t]["old"]) for t in tasks if sha(cands[t]["old"]) != sha(cands[t]["new"])]
    prebuild(pairs, ext_dir, log)

    log("%-26s %-4s %-15s %8s %8s %9s %6s %s" % ("task", "file", "status", "x eager", "x graph", "cand ms", "wall",
                                                 "flags / reason"))
    rows = []
    plan = [(t, w) for t in tasks for w in order]
    with open(os.path.join(a.out, "showcase_generated_check.jsonl"), "w") as jl:
        for k, (t, which) in enumerate(plan):
            if time.time() - t0 > a.budget_s:
                log("(budget of %.0f s reached: %d of %d evaluations not run)" % (a.budget_s, len(plan) - k, len(plan)))
                break
            r = evaluate(t, cands[t][which], a.task_timeout)
            row = {"task": t, "file": which, "status": r.get("status"), "eager": speedup(r, "eager"),
                   "graph": speedup(r, "graph"), "candidate_ms": (r.get("candidate") or {}).get("median_ms"),
                   "wall": r["_wall"], "flags": flags(r), "reason": r.get("reason", "")}
            row["clean"] = row["status"] == "ok" and not row["flags"]
            rows.append(row)
            log("%-26s %-4s %-15s %8.2f %8.2f %9s %6.1f %s" % (
                t, which, row["status"], row["eager"], row["graph"],
                "%.3f" % row["candidate_ms"] if row["candidate_ms"] else "-", row["wall"],
                ",".join(row["flags"]) or ("" if row["clean"] else row["reason"][:120])))
            jl.write(json.dumps(dict(r, _task=t, _file=which, _clean=row["clean"])) + "\n")
            jl.flush()

    log("\n== generated vs committed (x graph: mean of each side's evaluations; tolerance %.0f%%) ==" % (
        100 * TOLERANCE))
    summary = {"commit": a.commit, "old": src, "gpu": gpu, "tolerance": TOLERANCE, "tasks": {}, "rows": rows}
    ok = bool(rows) and all(r["clean"] for r in rows)
    for t in tasks:
        side = {w: [r for r in rows if r["task"] == t and r["file"] == w] for w in ("old", "new")}
        g = {w: [r["graph"] for r in side[w] if r["clean"] and r["graph"] == r["graph"]] for w in side}
        e = {w: [r["eager"] for r in side[w] if r["clean"] and r["eager"] == r["eager"]] for w in side}
        if g["old"] and g["new"]:
            old_g, new_g = statistics.mean(g["old"]), statistics.mean(g["new"])
            delta = new_g / old_g - 1.0
            within = abs(delta) <= TOLERANCE
            log("%-26s x graph new %.2f (%s) vs old %.2f (%s): %+.1f%% %s; x eager new %.2f vs old %.2f" % (
                t, new_g, ", ".join("%.2f" % v for v in g["new"]), old_g, ", ".join("%.2f" % v for v in g["old"]),
                100 * delta, "within" if within else "OUTSIDE", statistics.mean(e["new"]), statistics.mean(e["old"])))
            summary["tasks"][t] = {"graph_new": new_g, "graph_old": old_g, "delta": delta, "within": within,
                                   "eager_new": statistics.mean(e["new"]), "eager_old": statistics.mean(e["old"])}
            ok = ok and within
        else:
            log("%-26s no clean evaluation on one side: no comparison" % t)
            summary["tasks"][t] = {"within": False}
            ok = False
    n_clean = sum(1 for r in rows if r["clean"])
    log("evaluations clean: %d/%d; verdict: %s (%.0f s)" % (n_clean, len(rows), "PASS" if ok else "FAIL",
                                                          time.time() - t0))
    summary["pass"] = ok
    with open(os.path.join(a.out, "showcase_generated_check.json"), "w") as f:
        json.dump(summary, f, indent=1)
    shutil.rmtree(work, ignore_errors=True)
    return 0 if ok else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd")
    x = sub.add_parser("extract", help="write the committed candidates of --rev into --old (needs git history)")
    x.add_argument("--rev", default="2465f8d")
    x.add_argument("--old", default=OLD_DIR)
    r = sub.add_parser("run", help="generate, evaluate old and new, compare (device)")
    r.add_argument("--out", default=os.environ.get("OUT") or "showcase_generated_check")
    r.add_argument("--old", default=OLD_DIR)
    r.add_argument("--tasks", default=",".join(TASKS))
    r.add_argument("--rounds", type=int, default=2, help="evaluations of each file per task (2: old, new, new, old)")
    r.add_argument("--extensions-dir", default=os.path.join(tempfile.gettempdir(), "kwb-ext-gencheck"))
    r.add_argument("--task-timeout", type=float, default=150.0)
    r.add_argument("--budget-s", type=float, default=430.0,
                   help="no evaluation starts this long after the start (with --task-timeout: under 600 s in all)")
    r.add_argument("--commit", default="the working tree", help="what to call the tree in the report")
    a = ap.parse_args()
    if a.cmd == "extract":
        return extract(a)
    if a.cmd == "run":
        return run(a)
    ap.print_help()
    return 2


if __name__ == "__main__":
    sys.exit(main())
