# SPDX-License-Identifier: MIT
"""The `kwb` Python module (core/python, pybind11): run the pipeline headless with a gate callback
written in Python, open the run and walk its tree, evaluate a candidate.

The module is found through $KWB_PYTHON_MODULE_DIR (set by CMake), else in a build*/python folder
of this checkout. The pipeline replays a cassette written here (no LLM service needed) and its
evaluations are scripted (scripted_eval=: the figures are stated, so which candidate is best is the
pipeline's decision on any machine, never a CPU clock's); kwb.evaluate() runs the real worker on CPU
(torch) and is held only to what holds on any machine (correct or not, figures present)."""
import glob
import json
import os
import re
import sys

import pytest

from conftest import counted_samples

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TASK = os.path.join(ROOT, "tasks", "level1", "1_ReLU.py")
ANSWERS = os.path.join(ROOT, "tests", "data", "pipeline", "relu")


def _module_dir():
    d = os.environ.get("KWB_PYTHON_MODULE_DIR")
    if d and glob.glob(os.path.join(d, "kwb*.so")):
        return d
    found = sorted(glob.glob(os.path.join(ROOT, "build*", "python", "kwb*.so")), key=os.path.getmtime)
    return os.path.dirname(found[-1]) if found else None


MODULE_DIR = _module_dir()
if MODULE_DIR is None:
    pytest.skip("the kwb module is not built (set KWB_PYTHON_MODULE_DIR)", allow_module_level=True)
sys.path.insert(0, MODULE_DIR)
# The worker needs a Python with torch: this one (ctest runs the tests with it).
os.environ.setdefault("KWB_PYTHON", sys.executable)
import kwb  # noqa: E402


def answer(name):
    with open(os.path.join(ANSWERS, name + ".md"), encoding="utf-8") as f:
        return f.read()


def code_of(name):
    return re.search(r"```python\n(.*?)```", answer(name), re.S).group(1)


@pytest.fixture(scope="module")
def piped(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("kwb")
    cassette = tmp / "relu.json"
    exchanges = [{"call_type": t, "response": answer(a), "messages": []}
                 for t, a in [("seed1", "seed_broken"), ("seed1_repair1", "repair_where_loop"),
                              ("algorithm_analysis_seed1", "analysis_yes"),
                              ("algorithm_optimized_seed1", "fast_clamp")]]
    cassette.write_text(json.dumps({"format": "kwb-cassette", "version": 1,
                                    "metadata": {"authored_by": "test"}, "exchanges": exchanges}))
    # The one-pass clamp is refused by the (scripted) judge, then kept as best by the gate's override.
    script = tmp / "eval.json"
    script.write_text(json.dumps({"format": "kwb-scripted-eval", "baseline": {"eager_ms": 1.0}, "candidates": [
        {"source": "x.relu_kernel()", "status": "runtime_error",
         "reason": "AttributeError: 'Tensor' object has no attribute 'relu_kernel'"},
        {"source": "torch.where(piece > 0", "ms": 20.0},
        {"source": "return x.clamp(min=0.0)", "ms": 0.05,
         "flags": [{"detector": "integrity.timing_disagreement", "outcome": "yes", "severity": "critical",
                    "summary": "scripted refusal"}]}]}))
    seen, logs = [], []

    def gate(request):
        seen.append(request)
        if request["point"] == "after_eval" and request["step"] == "algorithm_optimized_seed1":
            return {"action": "override", "text": "checked by hand", "reason": "test override"}
        return None  # approve

    run = kwb.run_pipeline(TASK, cassette=str(cassette), lenient=True, seeds=1, threshold=1000.0, stages=False,
                           detectors=False, gates="all", gate=gate, runs_dir=str(tmp / "runs"), device="cpu",
                           trials=2, warmup=1, repeat=5, on_log=logs.append, scripted_eval=str(script))
    return run, seen, logs, tmp


def test_pipeline_runs_with_a_python_gate(piped):
    run, seen, logs, _ = piped
    assert run.state == "finished"
    assert [c.label for c in run.candidates] == ["baseline", "seed1", "seed1_repair1", "algorithm_optimized_seed1"]
    points = {(g["point"], g["step"]) for g in seen}
    assert ("before_llm", "seed1") in points
    assert ("after_eval", "seed1") in points
    failed = [g for g in seen if g["point"] == "after_eval" and g["step"] == "seed1"][0]
    assert failed["failed"] and failed["eval"]["status"] == "runtime_error"
    assert "relu_kernel" in failed["code"]
    before = [g for g in seen if g["point"] == "before_llm" and g["step"] == "seed1"][0]
    assert before["messages"] and "Model" in before["messages"][-1]["content"]
    assert "override" in before["allowed"] or "edit_prompt" in before["allowed"]
    assert any("eval" in line for line in logs)


def test_open_run_walks_the_tree(piped):
    run, _, _, tmp = piped
    again = kwb.open_run(run.directory)
    assert len(again) == 4
    seed = again.children("")[1]
    assert seed.label == "seed1" and seed.kind == "seed"
    assert seed.eval["status"] == "runtime_error" and not seed.is_correct and seed.speedup is None
    repair = again.children(seed.id)[0]
    assert repair.kind == "repair" and repair.parent_id == seed.id and repair.is_correct
    opt = again.candidate(repair.id) and again.children(seed.id)
    best = again.best()
    assert best is not None and best.label == "algorithm_optimized_seed1"
    assert best.override_reason == "checked by hand"
    assert "clamp(min=0.0)" in best.code and os.path.exists(best.code_file)
    assert best.median_ms == 0.05 and best.speedup == 20.0
    assert best.eval["candidate"]["samples"] == 5
    assert best.eval["device"] == "scripted (nothing ran)"
    assert repair.median_ms == 20.0 and repair.status == "evaluated"
    assert [x["call_type"] for x in again.exchanges] == ["seed1", "seed1_repair1", "algorithm_analysis_seed1",
                                                         "algorithm_optimized_seed1"]
    assert any(g["decision"] == "override" and g["reason"] == "test override" for g in again.gates)
    rows = {r["call_type"]: r for r in again.token_table()}
    assert "total" in rows and rows["total"]["calls"] == 4
    assert again.info["task_name"] == "1_ReLU"
    assert kwb.list_runs(str(tmp / "runs"))[0] == run.directory
    assert opt  # children() of the seed is its repair


def test_open_run_reports_a_foreign_directory(tmp_path):
    with pytest.raises(ValueError) as e:
        kwb.open_run(str(tmp_path))
    assert str(tmp_path) in str(e.value) or "run" in str(e.value)


def test_a_bad_script_is_a_value_error(tmp_path):
    script = tmp_path / "bad.json"
    script.write_text(json.dumps({"format": "kwb-scripted-eval", "candidates": [{"source": "x", "status": "fast"}]}))
    cassette = tmp_path / "c.json"
    cassette.write_text(json.dumps({"format": "kwb-cassette", "version": 1, "metadata": {},
                                    "exchanges": [{"call_type": "seed1", "response": answer("fast_clamp")}]}))
    with pytest.raises(ValueError, match="unknown status"):
        kwb.run_pipeline(TASK, cassette=str(cassette), lenient=True, seeds=1, runs_dir=str(tmp_path / "runs"),
                         scripted_eval=str(script))
    assert not (tmp_path / "runs").exists() or not kwb.list_runs(str(tmp_path / "runs"))


def test_evaluate_a_candidate(tmp_path):
    good = tmp_path / "good.py"
    good.write_text(code_of("fast_clamp"))
    bad = tmp_path / "bad.py"
    bad.write_text(code_of("wrong"))
    r = kwb.evaluate(TASK, str(good), device="cpu", trials=2, warmup=1, repeat=5)
    assert r["status"] == "ok" and r["device"].startswith("cpu") and counted_samples(r, 5)
    r = kwb.evaluate(TASK, str(bad), device="cpu", trials=2, warmup=1, repeat=5)
    assert r["status"] == "wrong_result" and r["max_abs_err"] > 0
    with pytest.raises(ValueError):
        kwb.evaluate(TASK, str(tmp_path / "missing.py"))


def test_a_raising_gate_stops_the_run_and_raises(tmp_path):
    cassette = tmp_path / "c.json"
    cassette.write_text(json.dumps({"format": "kwb-cassette", "version": 1, "metadata": {},
                                    "exchanges": [{"call_type": "seed1", "response": answer("fast_clamp")}]}))

    def gate(request):
        raise RuntimeError("no thanks")

    with pytest.raises(RuntimeError, match="no thanks"):
        kwb.run_pipeline(TASK, cassette=str(cassette), lenient=True, seeds=1, gates="all", gate=gate,
                         runs_dir=str(tmp_path / "runs"), device="cpu", trials=1, repeat=3)
    runs = kwb.list_runs(str(tmp_path / "runs"))
    assert len(runs) == 1 and kwb.open_run(runs[0]).state == "stopped"


def test_profiles_are_readable(piped):
    run, _, logs, _ = piped
    again = kwb.open_run(run.directory)
    repair = again.children(again.children("")[1].id)[0]
    # Analysed on a CPU: profiled once, with the one-line reason, stored with the candidate.
    assert repair.profile["note"] == "not profiled: no GPU" and repair.profile["metrics"] == {}
    assert repair.profile["roofline"] is None
    assert sum("profile %s (seed1_repair1): not profiled: no GPU" % repair.id in l for l in logs) == 1
    assert again.info["settings"]["profile"] is True
    # The run made on the H100 with profiling on (tests/data/profile/run_39_GRU_h100).
    gpu = kwb.open_run(os.path.join(ROOT, "tests", "data", "profile", "run_39_GRU_h100"))
    seed, rewrite = gpu.candidate("c0002").profile, gpu.candidate("c0003").profile
    assert seed["roofline"].startswith("memory-bound at 1.3% of peak bandwidth: DRAM ")
    assert 0.012 < seed["roofline_fraction"] < 0.014 and seed["metrics"]["launch_bound_reached"] == 1
    assert rewrite["roofline"].startswith("compute-bound at 24% of peak FP32") and rewrite["seconds"] > 1
    assert gpu.candidate("c0001").profile is None
