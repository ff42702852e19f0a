#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The judge's one clock on the device (not run by CI): honest candidates whose figure is known by
construction, each evaluated many times, and how far their figures wander.

Sections (--sections, in order):
  tiny        relu_correct (torch.clamp_min, the same single kernel as the task's torch.relu) on
              tasks/level1/1_ReLU, and the own code (`Model` renamed `ModelNew`) of every tasks/level1 and
              tasks/level2 task: each must come back ok with no error/critical flag at 0.95-1.05x eager;
              and triton_fused_chain on tests/data/tasks/elementwise_chain_tiny (one fused kernel against
              eager's five at ~5 us a call): an honest kernel genuinely faster than eager, which must be
              clean and faster
  reductions  KernelBench 47_Sum_reduction_over_a_dimension and 53_Min_reduction_over_a_dimension, own code
  handwritten the hand-written honest kernels of judge_check.py, beside the pre-judge worker (--old-worker)
--runs N evaluations of each case (sections tiny and reductions). Prints one row per evaluation, then per
case: runs, ok, flagged, x eager min / median / max, and whether every run was inside the band. Every result
goes to --out as a JSON line.

Usage: clock_check.py --out FILE [--runs 10] [--sections tiny,reductions,handwritten]
                      [--kernelbench DIR] [--old-worker DIR/kwb_worker.py] [--budget-s 540] [--device cuda]
       clock_check.py --replay FILE... [--commit ID]   (the rows and summary of earlier --out files)
"""
import argparse
import glob
import json
import os
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpu_runs import ROOT, Evaluations, flags, git_commit, old_worker_eval, speedup, write_own_code  # noqa: E402

BAND = (0.95, 1.05)
FASTER = (1.05, 1e9)  # an honest kernel genuinely faster than eager
ANY = (0.0, 1e9)  # hand-written kernels: a figure, no band
HANDWRITTEN = [("tasks/level1/1_ReLU.py", "tests/data/candidates/triton_relu.py"),
               ("tasks/level1/1_ReLU.py", "tests/data/candidates/cuda_inline_relu.py"),
               ("tests/data/tasks/elementwise_chain.py", "tests/data/candidates/triton_fused_chain.py"),
               ("KB:1/1_Square_matrix_multiplication_", "tests/data/candidates/triton_matmul_fp32.py")]
REDUCTIONS = ["47_Sum_reduction_over_a_dimension", "53_Min_reduction_over_a_dimension"]


def kb_task(kb, level, stem):
    hits = glob.glob(os.path.join(kb, "KernelBench", "level%d" % level, stem + ".py")) or \
        glob.glob(os.path.join(kb, "level%d" % level, stem + ".py"))
    return hits[0] if hits else None


class Check:
    def __init__(self, a):
        self.a = a
        self.ev = Evaluations(a.device) if not a.replay else None
        self.out = open(a.out, "a") if not a.replay else None
        self.tmp = tempfile.mkdtemp(prefix="kwb-clock-")
        self.t0 = time.time()
        self.cases = {}  # name -> list of rows
        print("%-44s %-10s %8s %8s %6s %6s %s" % ("case", "status", "x eager", "x graph", "K", "wall", "flags / reason"),
              flush=True)

    def over(self):
        return time.time() - self.t0 > self.a.budget_s

    def run(self, case, task, cand, band=BAND, faster=False):
        if self.over():
            return None
        r = self.ev.evaluate(task, cand, timeout=self.a.task_timeout)
        self.row(case, r, band, faster)
        self.out.write(json.dumps(dict(r, _case=case)) + "\n")
        self.out.flush()
        return r

    def replay(self, paths):
        """The rows and summary of earlier runs, from their --out files (no evaluation is made)."""
        for path in paths:
            with open(path) as f:
                for line in f:
                    r = json.loads(line)
                    case = r.get("_case", "")
                    if case.startswith("pre-judge "):
                        continue
                    band = FASTER if case.startswith("fused chain") else ANY if case.startswith("handwritten ") else BAND
                    self.row(case, r, band)

    def row(self, case, r, band, faster=False):
        e, g = speedup(r, "eager"), speedup(r, "graph")
        fl = flags(r)
        k = next((int(w.split()[0]) for w in r.get("reason", "").split("; ") if w.endswith("on fresh inputs")
                  and w.split()[0].isdigit()), 1)
        row = {"case": case, "status": r["status"], "eager": e, "graph": g, "flags": fl, "wall": r["_wall"], "K": k,
               "band": band, "faster": faster, "reason": r.get("reason", ""),
               "start": r.get("_start", float("nan"))}
        self.cases.setdefault(case, []).append(row)
        print("%-44s %-10s %8.3f %8.3f %6d %6.1f %s" % (case[:44], r["status"], e, g, k, r["_wall"],
                                                       ",".join(fl) or ("" if r["status"] == "ok" else r["reason"][:90])),
              flush=True)

    def section_tiny(self):
        cases = [("relu_correct on 1_ReLU", os.path.join(ROOT, "tasks", "level1", "1_ReLU.py"),
                  os.path.join(ROOT, "tests", "data", "candidates", "relu_correct.py"), BAND, False)]
        for lv in ("level1", "level2"):
            for t in sorted(glob.glob(os.path.join(ROOT, "tasks", lv, "*.py"))):
                cases.append(("own %s/%s" % (lv, os.path.basename(t)), t, write_own_code(t, self.tmp), BAND, False))
        cases.append(("fused chain (tiny)", os.path.join(ROOT, "tests", "data", "tasks", "elementwise_chain_tiny.py"),
                      os.path.join(ROOT, "tests", "data", "candidates", "triton_fused_chain.py"), FASTER, True))
        for i in range(self.a.runs):
            for c in cases:
                self.run(*c)

    def section_reductions(self):
        for i in range(self.a.runs):
            for stem in REDUCTIONS:
                t = kb_task(self.a.kernelbench, 1, stem)
                if t is None:
                    print("%s missing from %s" % (stem, self.a.kernelbench))
                    continue
                self.run("own L1 " + stem, t, write_own_code(t, self.tmp))

    def section_handwritten(self):
        for task, cand in HANDWRITTEN:
            if task.startswith("KB:"):
                lv, stem = task[3:].split("/")
                task = kb_task(self.a.kernelbench, int(lv), stem)
                if task is None:
                    continue
            else:
                task = os.path.join(ROOT, task)
            r = self.run("handwritten " + os.path.basename(cand), task, os.path.join(ROOT, cand), band=ANY)
            if r is not None and self.a.old_worker:
                old = old_worker_eval(self.a.old_worker, task, os.path.join(ROOT, cand))
                oe = speedup(old, "eager")
                self.cases["handwritten " + os.path.basename(cand)][-1]["old_eager"] = oe
                print("%-44s %-10s %8.3f %8.3f %6s %6.1f" % ("  pre-judge worker", old["status"], oe,
                                                           speedup(old, "graph"), "", old["_wall"]), flush=True)
                self.out.write(json.dumps(dict(old, _case="pre-judge " + os.path.basename(cand))) + "\n")

    def summary(self):
        print("\n== summary (commit %s, %.0f s) ==" % (self.a.commit, time.time() - self.t0))
        bad = 0
        for case, rows in self.cases.items():
            sp = [r["eager"] for r in rows if r["status"] == "ok" and r["eager"] == r["eager"]]
            lo, hi = rows[0]["band"]
            ok = sum(1 for r in rows if r["status"] == "ok")
            flagged = sum(1 for r in rows if r["flags"])
            inside = sum(1 for x in sp if lo <= x <= hi)
            good = ok == len(rows) and flagged == 0 and inside == len(rows)
            bad += not good
            extra = ""
            if rows[-1].get("old_eager") is not None:
                extra = "  pre-judge %.3f (%+.1f%%)" % (rows[-1]["old_eager"], 100.0 * (sp[-1] / rows[-1]["old_eager"] - 1)
                                                       if sp and rows[-1]["old_eager"] else float("nan"))
            print("%-44s runs %2d ok %2d flagged %2d x eager %s%s  %s" % (
                case[:44], len(rows), ok, flagged,
                "min %.3f med %.3f max %.3f" % (min(sp), statistics.median(sp), max(sp)) if sp else "-",
                " (band %.2f-%s: %d/%d inside)" % (lo, "%.2f" % hi if hi < 1e8 else "", inside, len(rows)),
                "PASS" if good else "FAIL") + extra)
        walls = [r["wall"] for rows in self.cases.values() for r in rows]
        if walls:
            warm = [r["wall"] - r["start"] for rows in self.cases.values() for r in rows if r["start"] == r["start"]]
            print("wall per evaluation: median %.1f s, max %.1f s (%d evaluations)%s" % (
                statistics.median(walls), max(walls), len(walls),
                "; less the worker's start: median %.1f s" % statistics.median(warm) if warm else ""))
        if self.over():
            print("(budget of %.0f s reached: later runs not made)" % self.a.budget_s)
        return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out")
    ap.add_argument("--replay", nargs="+", help="summarise earlier --out files instead of evaluating")
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--sections", default="tiny,reductions,handwritten")
    ap.add_argument("--kernelbench", default=os.path.join(ROOT, ".device", "kb"))
    ap.add_argument("--old-worker")
    ap.add_argument("--budget-s", type=float, default=540.0)
    ap.add_argument("--task-timeout", type=float, default=120.0)
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--commit", default=None)
    a = ap.parse_args()
    a.commit = a.commit or git_commit()
    if not a.out and not a.replay:
        ap.error("--out is required (or --replay FILE...)")
    c = Check(a)
    if a.replay:
        c.replay(a.replay)
        return c.summary()
    try:
        for s in a.sections.split(","):
            getattr(c, "section_" + s)()
    finally:
        c.ev.close()
    return c.summary()


if __name__ == "__main__":
    sys.exit(main())
