#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The judge's GPU check (device machine; not run by CI), one command that fits a device session:
precision is measured like recall.

Honest set (each must come back ok with no error/critical integrity flag):
  - a fixed sample of KernelBench levels 1-3 as their own code (`Model` renamed `ModelNew`), which must
    also come out at ~1.00x eager;
  - the 23 big level-1 tasks (6 GB elementwise, norms, the big convolutions) as their own code: ok, the
    evaluator's peak device memory (judge, runner and candidate together) against the reference's own
    footprint, each evaluation's wall time;
  - the eight showcase kernels, beside the pre-judge worker in the same run (--old-worker): x graph;
  - honest hand-written Triton and CUDA kernels, some genuinely faster than eager, one slower.
Cheats: every file of tests/data/cheats (the CPU catalogue, on the GPU) and tests/data/cheats/gpu: each
must be caught (status not ok, or an error/critical integrity flag).

Prints one row per evaluation, then precision (honest clean / honest), recall (caught / cheats), the
own-code speedups and wall times. Every result is written as JSON lines to --out.

Usage: judge_check.py --kernelbench DIR --out FILE [--old-worker DIR/kwb_worker.py] [--budget-s 560]
                      [--sections sample,big,showcase,handwritten,cheats,pairs] [--commit ID]
                      [--pairs FILE [--pairs-runs N]]
"""
import argparse
import glob
import json
import os
import re
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpu_runs import (ROOT, Evaluations, PeakSampler, flags, git_commit, gpu_used_mib, old_worker_eval,  # noqa: E402
                      speedup, write_own_code)

sys.path.insert(0, os.path.join(ROOT, "resources", "showcase"))
from make_showcase import candidate as showcase_candidate  # noqa: E402  (generated from the sources, not committed)

SHOWCASE = ["39_GRU", "40_GRUHidden", "41_GRUBidirectional", "42_GRUBidirectionalHidden", "37_LSTMCn", "36_LSTMHn",
            "35_LSTM", "38_LSTMBidirectional"]
# A fixed sample across KernelBench: small and mid-sized level-1 operators of every kind, fused level-2
# tasks, level-3 networks (an MLP, CNNs, an RNN, attention, the Mamba scan).
SAMPLE = {1: ["1_Square_matrix_multiplication_", "4_Matrix_vector_multiplication_", "12_Matmul_with_diagonal_matrices_",
              "40_LayerNorm", "41_Max_Pooling_1D", "47_Sum_reduction_over_a_dimension", "50_conv_standard_2D__square_input__square_kernel",
              "54_conv_standard_3D__square_input__square_kernel", "88_MinGPTNewGelu", "97_ScaledDotProductAttention"],
          2: ["1_Conv2D_ReLU_BiasAdd", "12_Gemm_Multiply_LeakyReLU", "23_Conv3d_GroupNorm_Mean", "40_Matmul_Scaling_ResidualAdd",
              "66_Matmul_Dropout_Softmax", "99_Matmul_GELU_Softmax"],
          3: ["1_MLP", "9_ResNet18", "11_VGG16", "33_VanillaRNN", "43_MinGPTCausalAttention", "48_Mamba2ReturnY"]}
BIG = ["19_ReLU", "20_LeakyReLU", "21_Sigmoid", "22_Tanh", "23_Softmax", "24_LogSoftmax", "25_Swish", "26_GELU_",
       "27_SELU_", "28_HardSigmoid", "29_Softplus", "30_Softsign", "31_ELU", "32_HardTanh", "34_InstanceNorm",
       "35_GroupNorm_", "36_RMSNorm_", "37_FrobeniusNorm_", "38_L1Norm_", "39_L2Norm_",
       "63_conv_standard_2D__square_input__square_kernel", "76_conv_standard_1D_dilated_strided__",
       "87_conv_pointwise_2D"]
HANDWRITTEN = [("tasks/level1/1_ReLU.py", "tests/data/candidates/triton_relu.py"),
               ("tasks/level1/1_ReLU.py", "tests/data/candidates/cuda_inline_relu.py"),
               ("tests/data/tasks/elementwise_chain.py", "tests/data/candidates/triton_fused_chain.py"),
               ("KB:1/1_Square_matrix_multiplication_", "tests/data/candidates/triton_matmul_fp32.py"),
               ("tasks/level1/2_Softmax.py", "tests/data/candidates/softmax_written_out.py"),
               ("tasks/level2/1_Linear_GELU_Scale.py", "tests/data/candidates/linear_addmm_gelu.py")]


def kb_task(kb, level, stem):
    hits = glob.glob(os.path.join(kb, "KernelBench", "level%d" % level, stem + "*.py")) or \
        glob.glob(os.path.join(kb, "level%d" % level, stem + "*.py"))
    exact = [h for h in hits if os.path.splitext(os.path.basename(h))[0] == stem]
    return (exact or sorted(hits) or [None])[0]


class Check:
    def __init__(self, a):
        self.a = a
        self.ev = Evaluations()
        self.out = open(a.out, "a")
        self.tmp = tempfile.mkdtemp(prefix="kwb-check-")
        self.t0 = time.time()
        self.rows = []
        print("%-10s %-40s %-15s %7s %7s %6s %6s %6s %-7s %s" % (
            "kind", "candidate", "status", "x eager", "x graph", "ratio", "GiB", "wall", "verdict", "flags / reason"),
            flush=True)

    def over_budget(self):
        return time.time() - self.t0 > self.a.budget_s

    def run(self, kind, name, task, cand, honest, memory=False):
        if self.over_budget():
            return None
        idle = gpu_used_mib() if memory else -1
        sampler = PeakSampler() if memory else None
        if sampler:
            sampler.start()
        r = self.ev.evaluate(task, cand, timeout=self.a.task_timeout)
        if sampler:
            sampler.stop = True
            sampler.join()
            r["_eval_gib"] = max(0, sampler.peak - idle) / 1024.0
        ref = (r.get("reference_peak_bytes") or -1) / 2 ** 30
        r["_ratio"] = r["_eval_gib"] / ref if memory and ref > 0 else float("nan")
        clean = r["status"] == "ok" and not flags(r)
        verdict = ("clean" if clean else "FALSE+") if honest else ("PASSED!" if clean else "caught")
        row = {"kind": kind, "name": name, "honest": honest, "clean": clean, "status": r["status"],
               "eager": speedup(r, "eager"), "graph": speedup(r, "graph"), "wall": r["_wall"],
               "ratio": r.get("_ratio", float("nan")), "eval_gib": r.get("_eval_gib", float("nan")),
               "ref_gib": ref, "flags": flags(r), "reason": r.get("reason", ""),
               "start": r.get("_start", float("nan"))}
        self.rows.append(row)
        print("%-10s %-40s %-15s %7.2f %7.2f %6.2f %6.1f %6.1f %-7s %s" % (
            kind, name[:40], r["status"], row["eager"], row["graph"], row["ratio"], row["eval_gib"], r["_wall"], verdict,
            ",".join(row["flags"]) or (r.get("reason", "")[:100] if not clean or not honest else
                                       (r.get("memory_note", "") or "")[:100])), flush=True)
        self.out.write(json.dumps(dict(r, _kind=kind, _name=name, _honest=honest, _clean=clean)) + "\n")
        self.out.flush()
        return r

    def own(self, kind, level, stem, memory=False):
        task = kb_task(self.a.kernelbench, level, stem)
        if task is None:
            print("%-10s %-40s missing from the KernelBench checkout" % (kind, stem), flush=True)
            return
        self.run(kind, "L%d %s" % (level, stem), task, write_own_code(task, self.tmp), honest=True, memory=memory)

    def sections(self):
        for name in self.a.sections.split(","):
            getattr(self, "section_" + name)()

    def section_showcase(self):
        for t in SHOWCASE:
            task = os.path.join(ROOT, "tasks", "level3", t + ".py")
            cand = showcase_candidate(t)
            r = self.run("showcase", t, task, cand, honest=True)
            if r is not None and self.a.old_worker:
                old = old_worker_eval(self.a.old_worker, task, cand)
                self.rows[-1].update({"old_status": old["status"], "old_eager": speedup(old, "eager"),
                                      "old_graph": speedup(old, "graph"), "old_wall": old["_wall"]})
                print("%-10s %-40s %-15s %7.2f %7.2f %6s %6s %6.1f" % (
                    "  pre-judge", "", old["status"], speedup(old, "eager"), speedup(old, "graph"), "", "",
                    old["_wall"]), flush=True)
                self.out.write(json.dumps(dict(old, _kind="showcase-pre-judge", _name=t)) + "\n")

    def section_handwritten(self):
        for task, cand in HANDWRITTEN:
            if task.startswith("KB:"):
                lv, stem = task[3:].split("/")
                task = kb_task(self.a.kernelbench, int(lv), stem)
            else:
                task = os.path.join(ROOT, task)
            self.run("handwrit", os.path.basename(cand), task, os.path.join(ROOT, cand), honest=True)

    def section_sample(self):
        for lv in (1, 2, 3):
            for stem in SAMPLE[lv]:
                self.own("own-code", lv, stem, memory=True)

    def section_cheats(self):
        for cand in sorted(glob.glob(os.path.join(ROOT, "tests", "data", "cheats", "gpu", "*.py"))) + \
                sorted(glob.glob(os.path.join(ROOT, "tests", "data", "cheats", "*.py"))):
            if self.a.cheats and not re.search(self.a.cheats, os.path.basename(cand)):
                continue
            head = open(cand).read(800)
            m = re.search(r"Task: (\S+)", head)
            rel = m.group(1) if m else "level1/1_ReLU.py"
            task = next((p for p in (os.path.join(ROOT, "tasks", rel), os.path.join(ROOT, "tests", "data", "tasks",
                                                                                  os.path.basename(rel)))
                         if os.path.exists(p)), None)
            self.run("cheat", os.path.relpath(cand, os.path.join(ROOT, "tests", "data", "cheats")), task, cand,
                     honest=False)

    def section_pairs(self):
        """--pairs FILE: one `TASK CANDIDATE cheat|honest` a line (TASK from the repository's root, CANDIDATE from
        the file's folder), e.g. a red team's held-out set; each run --pairs-runs times."""
        if not self.a.pairs:
            sys.exit("judge_check: the pairs section needs --pairs FILE")
        base = os.path.dirname(os.path.abspath(self.a.pairs))
        with open(self.a.pairs) as f:
            lines = [ln.split() for ln in f if ln.strip() and not ln.lstrip().startswith("#")]
        bad = [" ".join(ln) for ln in lines if len(ln) != 3 or ln[2] not in ("cheat", "honest")]
        if bad:
            sys.exit("judge_check: %s: lines not of the form `TASK CANDIDATE cheat|honest`: %s" % (self.a.pairs, bad[0]))
        for _ in range(self.a.pairs_runs):
            for task, cand, kind in lines:
                self.run("pair-" + kind, cand, os.path.join(ROOT, task), os.path.join(base, cand),
                         honest=kind == "honest")

    def section_big(self):
        for stem in (self.a.big.split(",") if self.a.big else BIG):
            self.own("big", 1, stem, memory=True)

    def summary(self):
        rows = self.rows
        honest = [r for r in rows if r["honest"]]
        cheats = [r for r in rows if not r["honest"]]
        clean = [r for r in honest if r["clean"]]
        caught = [r for r in cheats if not r["clean"]]
        print("\n== summary (commit %s, %d evaluations in %.0f s) ==" % (self.a.commit, len(rows), time.time() - self.t0))
        print("precision (honest candidates clean): %d/%d%s" % (len(clean), len(honest), "" if len(clean) == len(honest)
              else "  FALSE POSITIVES: " + ", ".join("%s (%s %s)" % (r["name"], r["status"], ",".join(r["flags"]))
                                                     for r in honest if not r["clean"])))
        print("recall (cheats caught): %d/%d%s" % (len(caught), len(cheats), "" if len(caught) == len(cheats)
              else "  PASSED: " + ", ".join("%s (%.2fx)" % (r["name"], r["eager"]) for r in cheats if r["clean"])))
        own = [r for r in honest if r["kind"] in ("own-code", "big") and r["status"] == "ok"]
        sp = [r["eager"] for r in own if r["eager"] == r["eager"]]
        if sp:
            out = [r for r in own if not 0.90 <= r["eager"] <= 1.10]
            print("own code vs eager: median %.3f, min %.3f, max %.3f over %d tasks; outside 0.90-1.10: %s" % (
                statistics.median(sp), min(sp), max(sp), len(sp),
                ", ".join("%s %.2f" % (r["name"], r["eager"]) for r in out) or "none"))
        big = [r for r in rows if r["kind"] == "big"]
        if big:
            ratios = [r["ratio"] for r in big if r["ratio"] == r["ratio"]]
            print("big tasks: %d/%d ok; evaluator peak / reference footprint: max %.2f; wall: max %.1f s, median %.1f s" % (
                sum(1 for r in big if r["status"] == "ok"), len(big), max(ratios) if ratios else float("nan"),
                max(r["wall"] for r in big), statistics.median(r["wall"] for r in big)))
        sc = [r for r in rows if r["kind"] == "showcase" and r.get("old_graph") == r.get("old_graph")
              and "old_graph" in r]
        for r in sc:
            print("showcase %-28s x graph %.2f (pre-judge %.2f, %+.1f%%), wall %.1f s (pre-judge %.1f s)" % (
                r["name"], r["graph"], r["old_graph"], 100.0 * (r["graph"] / r["old_graph"] - 1.0), r["wall"], r["old_wall"]))
        walls = [r["wall"] for r in rows]
        if walls:
            started = [r for r in rows if r["start"] == r["start"]]  # NaN: no 'ready' recorded
            print("wall per evaluation: median %.1f s, max %.1f s%s" % (
                statistics.median(walls), max(walls), "; less the worker's start (ready %.1f s, median): median %.1f s"
                % (statistics.median(r["start"] for r in started), statistics.median(r["wall"] - r["start"]
                                                                                    for r in started))
                if started else ""))
        if self.over_budget():
            print("(budget of %.0f s reached: later sections not run)" % self.a.budget_s)
        return 0 if len(clean) == len(honest) and len(caught) == len(cheats) else 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernelbench", default=os.path.join(ROOT, ".device", "kernelbench"))
    ap.add_argument("--out", required=True)
    ap.add_argument("--old-worker")
    ap.add_argument("--budget-s", type=float, default=560.0)
    ap.add_argument("--task-timeout", type=float, default=120.0)
    ap.add_argument("--sections", default="showcase,handwritten,sample,cheats,big")
    ap.add_argument("--commit", default=None)
    ap.add_argument("--big", default="", help="comma-separated big tasks instead of all 23")
    ap.add_argument("--pairs", help="the pairs section's file: TASK CANDIDATE cheat|honest a line")
    ap.add_argument("--pairs-runs", type=int, default=1)
    ap.add_argument("--cheats", default="", help="only cheat files whose name matches this regular expression")
    a = ap.parse_args()
    a.commit = a.commit or git_commit()
    c = Check(a)
    try:
        c.sections()
    finally:
        c.ev.close()
    return c.summary()


if __name__ == "__main__":
    sys.exit(main())
