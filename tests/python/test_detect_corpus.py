# SPDX-License-Identifier: MIT
"""The labelled detector corpus (tests/data/detect): every detector's precision and recall over
every candidate, printed as a table; the test fails below 100%."""
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "core", "eval", "worker"))

from kwb_worker.detect import DETECTOR_IDS, run_detectors  # noqa: E402
from conftest import detect_task  # noqa: E402

DATA = os.path.join(ROOT, "tests", "data", "detect")
EXPECTED = json.load(open(os.path.join(DATA, "expected.json"), encoding="utf-8"))


def _read(*parts):
    with open(os.path.join(DATA, *parts), encoding="utf-8") as f:
        return f.read()


def _run(name):
    entry = EXPECTED["files"][name]
    with open(detect_task(entry["task"]), encoding="utf-8") as f:
        return run_detectors(f.read(), _read("candidates", name))


def test_every_candidate_is_labelled():
    on_disk = sorted(f for f in os.listdir(os.path.join(DATA, "candidates")) if f.endswith(".py"))
    assert on_disk == sorted(EXPECTED["files"])
    assert EXPECTED["detectors"] == DETECTOR_IDS


def test_precision_and_recall_per_detector():
    tp = {d: 0 for d in DETECTOR_IDS}
    fp = {d: [] for d in DETECTOR_IDS}
    fn = {d: [] for d in DETECTOR_IDS}
    for name, entry in sorted(EXPECTED["files"].items()):
        got = {v["detector"] for v in _run(name) if v["outcome"] == "yes"}
        want = set(entry["yes"])
        for d in DETECTOR_IDS:
            if d in got and d in want:
                tp[d] += 1
            elif d in got:
                fp[d].append(name)
            elif d in want:
                fn[d].append(name)
    print("\n%-30s %5s %5s %5s %9s %7s" % ("detector", "tp", "fp", "fn", "precision", "recall"))
    failures = []
    for d in DETECTOR_IDS:
        p = tp[d] / (tp[d] + len(fp[d])) if tp[d] + len(fp[d]) else 1.0
        r = tp[d] / (tp[d] + len(fn[d])) if tp[d] + len(fn[d]) else 1.0
        print("%-30s %5d %5d %5d %8.0f%% %6.0f%%" % (d, tp[d], len(fp[d]), len(fn[d]), 100 * p, 100 * r))
        if p < 1.0 or r < 1.0:
            failures.append("%s: false positives %s, false negatives %s" % (d, fp[d], fn[d]))
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("name", sorted(EXPECTED["files"]))
def test_verdicts_are_well_formed(name):
    verdicts = _run(name)
    assert [v["detector"] for v in verdicts] == DETECTOR_IDS
    for v in verdicts:
        assert v["outcome"] in ("yes", "no", "cannot_tell")
        assert v["severity"] in ("info", "warning", "error", "critical")
        assert v["summary"] and "\n" not in v["summary"]
        if v["outcome"] == "yes":
            assert v["evidence"], v
            assert v["suggested_fix"], v
            assert any(e["first_line"] > 0 for e in v["evidence"]), v
        for e in v["evidence"]:
            assert set(e) == {"first_line", "last_line", "text"}
            assert 0 <= e["first_line"] <= e["last_line"]


def test_integrity_cheats_block_best():
    """Every integrity.* corpus cheat is a yes with severity error or critical."""
    for name, entry in EXPECTED["files"].items():
        if not name.startswith("cheat_"):
            continue
        blocking = [v for v in _run(name) if v["detector"].startswith("integrity.") and v["outcome"] == "yes"
                    and v["severity"] in ("error", "critical")]
        assert blocking, name


def test_command_line_prints_json():
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "core", "eval", "worker"))
    out = subprocess.run([sys.executable, "-m", "kwb_worker.detect", detect_task("37_LSTMCn.py"),
                          os.path.join(DATA, "candidates", "lstm37_batch_grid.py"), "--sm-count", "114"],
                         env=env, capture_output=True, text=True, check=True)
    verdicts = json.loads(out.stdout)
    grid = next(v for v in verdicts if v["detector"] == "grid_parallelism")
    assert grid["outcome"] == "yes"
    assert any("10 programs on 114 SMs" in e["text"] for e in grid["evidence"])


def test_script_mode_under_isolation():
    """The C++ runner starts detect/__main__.py as a script with -I (PYTHONPATH ignored)."""
    script = os.path.join(ROOT, "core", "eval", "worker", "kwb_worker", "detect", "__main__.py")
    out = subprocess.run([sys.executable, "-I", script, detect_task("1_ReLU.py"),
                          os.path.join(DATA, "candidates", "relu_clean.py")], capture_output=True, text=True, check=True)
    assert all(v["outcome"] != "yes" for v in json.loads(out.stdout))
