# SPDX-License-Identifier: MIT
"""The worker's one-shot mode (`kwb_worker.py eval|baseline ... --json`) on every failure class and
every CPU-checkable integrity check, with real candidates from tests/data/candidates.

All runs start together in one module fixture (each is its own worker process) so the suite stays
fast on a busy machine; each test then checks one of them.
"""
import os
import re
import shutil

import pytest

from conftest import cand, checks, cli_many, counted_samples, task

RELU = task("level1/1_ReLU.py")
FAST = ["--device", "cpu", "--trials", "3", "--warmup", "1", "--repeat", "3"]


def _cases(tmp):
    # gru_explicit.py picks its return value from its file name: copy it under the task's name.
    gru_hidden = os.path.join(tmp, "gru_explicit_hidden.py")
    shutil.copy(cand("gru_explicit.py"), gru_hidden)
    lstm_fc = os.path.join(tmp, "lstm_explicit_fc.py")
    shutil.copy(cand("lstm_explicit.py"), lstm_fc)
    inproc = FAST + ["--in-process"]  # cases that cannot kill the process skip the child worker
    return {
        "correct": ["eval", RELU, cand("relu_correct.py")] + FAST,
        "wrong": ["eval", RELU, cand("relu_wrong.py")] + inproc,
        "shape": ["eval", RELU, cand("relu_shape.py")] + inproc,
        "syntax": ["eval", RELU, cand("relu_syntax.py")] + inproc,
        "import": ["eval", RELU, cand("relu_import_error.py")] + inproc,
        "runtime": ["eval", RELU, cand("relu_runtime_error.py")] + inproc,
        "oom": ["eval", RELU, cand("relu_oom.py")] + inproc,
        "triton": ["eval", RELU, cand("triton_relu.py")] + inproc,
        "segfault": ["eval", RELU, cand("relu_segfault.py")] + FAST,
        "hang": ["eval", RELU, cand("relu_hang.py"), "--run-timeout", "5"] + FAST,
        "cached": ["eval", RELU, cand("relu_cached.py")] + inproc,
        "alias_input": ["eval", RELU, cand("relu_alias_input.py")] + inproc,
        "mutation": ["eval", RELU, cand("relu_mutation.py")] + inproc,
        "empty_games": ["eval", task("relu_small.py"), cand("relu_aliasing.py")] + inproc,
        "timer_patch": ["eval", RELU, cand("relu_timer_patch.py")] + inproc,
        "thread": ["eval", RELU, cand("relu_thread.py"), "--plausible-speedup", "1e-6"] + inproc,
        "bf16": ["eval", task("level1/3_Matmul.py"), cand("matmul_bf16.py"), "--atol", "1", "--rtol", "1"] + inproc,
        "gru": ["eval", task("gru_small.py"), cand("gru_explicit.py")] + inproc,
        "gru_hidden": ["eval", task("gru_hidden_small.py"), gru_hidden] + inproc,
        "lstm": ["eval", task("lstm_small.py"), cand("lstm_explicit.py")] + inproc,
        "lstm_fc": ["eval", task("lstm_fc_small.py"), lstm_fc] + inproc,  # h0/c0 drawn in forward
        "big": ["eval", task("relu_big.py"), cand("relu_correct.py")] + FAST,
        "view_own": ["eval", task("view_flatten.py"), cand("view_own.py")] + FAST,
        "view_clone": ["eval", task("view_flatten.py"), cand("view_clone.py")] + FAST,
    }


@pytest.fixture(scope="module")
def runs(torch_python, tmp_path_factory):
    return cli_many(_cases(str(tmp_path_factory.mktemp("cands"))))


def _status(runs, name):
    rc, result, err = runs[name]
    assert result is not None, "no JSON from %s; stderr:\n%s" % (name, err[-3000:])
    return rc, result


def test_correct_candidate(runs):
    rc, r = _status(runs, "correct")
    assert rc == 0 and r["status"] == "ok", r["reason"]
    assert r["trials"] == 3 and r["max_abs_err"] == 0.0 and r["device"] == "cpu" and not r["on_gpu"]
    assert counted_samples(r, 3)
    assert "CPU" in r["reason"]
    verdicts = checks(r)
    assert set(verdicts) == {"integrity.cached_output", "integrity.input_mutation", "integrity.output_aliasing",
                             "integrity.timer_patch", "integrity.threads", "integrity.side_stream",
                             "integrity.precision", "integrity.implausible_speedup",
                             "integrity.timing_disagreement", "integrity.work_while_stopped",
                             "integrity.baseline_interference", "integrity.insensitive_inputs",
                             "integrity.busy_machine", "integrity.file_watch"}
    # The verdicts read from measured times may warn on a loaded machine (a fresh CI run: every frame of an
    # honest ReLU held 13 ms outside its own clock, against 1.2 ms for eager), never refuse; the others are no.
    clocked = {"integrity.timing_disagreement", "integrity.baseline_interference", "integrity.implausible_speedup",
               "integrity.busy_machine"}
    assert all(v["outcome"] != "yes" for d, v in verdicts.items() if d not in clocked), \
        [(d, v["severity"], v["summary"], v["evidence"]) for d, v in verdicts.items() if v["outcome"] == "yes"]
    assert all(verdicts[d]["severity"] not in ("error", "critical") for d in clocked), \
        [(d, verdicts[d]["severity"], verdicts[d]["summary"]) for d in clocked]
    assert verdicts["integrity.insensitive_inputs"]["outcome"] == "no"  # every element of a ReLU's input counts
    assert verdicts["integrity.side_stream"]["outcome"] == "cannot_tell"  # CPU: no streams
    assert r["profile_note"].startswith("not profiled")
    # The clean rounds: the baselines' of the six (the slowest of them caps a baseline beside the candidate), the
    # lanes' dry frames of those and of the rounds after them while they were quick (the lanes' offset).
    m = re.search(r"median of (\d+) rounds' baselines and (\d+) rounds' dry frames", r["log_tail"])
    assert m, r["log_tail"][-2000:]
    assert int(m.group(1)) == 6 and 6 <= int(m.group(2)) <= 30, m.group(0)


@pytest.mark.parametrize("name,status,words", [
    ("wrong", "wrong_result", ["trial 0", "max abs err"]),
    ("shape", "shape_mismatch", ["(16, 4096)", "(16, 100)"]),
    ("syntax", "syntax_error", ["SyntaxError", "relu_syntax.py:8"]),
    ("import", "syntax_error", ["kwb_no_such_module_anywhere"]),
    ("runtime", "runtime_error", ["relu_runtime_error.py:10", "cannot be multiplied"]),
    ("oom", "out_of_memory", ["allocate"]),
    ("triton", "no_gpu", ["needs a CUDA GPU"]),
    ("segfault", "crash", ["SIGSEGV"]),
    ("hang", "run_timeout", ["run limit"]),
])
def test_failure_classes(runs, name, status, words):
    rc, r = _status(runs, name)
    assert r["status"] == status, r["reason"]
    assert rc == 1
    for w in words:
        assert w in r["reason"], r["reason"]
    assert "\n" not in r["reason"]


def test_a_big_task_compares_the_lanes_by_their_bare_frames(runs):
    # Inputs and outputs over the judge's bound: one call a frame, the reference lane's outputs over its inputs,
    # the candidate's apart from them. The lanes' offset then comes from frames laid out alike in both, a dry batch
    # delivering one number (before, a big task had none, and its own copies came out at 0.67-1.0x on a GPU).
    rc, r = _status(runs, "big")
    assert rc == 0 and r["status"] == "ok", r["reason"]
    assert "one set alive at a time" in r["memory_note"], r["memory_note"]
    log = r["log_tail"]
    clean = next(ln for ln in log.splitlines() if "clean frames" in ln)
    assert " bare " in clean and " bare_cand " in clean, clean  # both lanes' bare frames ran in the clean rounds
    assert "lane offset" in log
    assert r["candidate"]["samples"] == r["eager"]["samples"] > 0


def test_failing_trial_and_errors_reported(runs):
    _, r = _status(runs, "wrong")
    assert r["failing_trial"] == 0 and r["trials"] == 1 and r["max_abs_err"] > 1e-3 and r["mean_abs_err"] > 0
    # Stopped before the candidate's process reported: what only it observes is unknown, not clean (red team 7's
    # bf16 ReLU patched time.perf_counter at import and was told "timers and synchronize untouched").
    v = checks(r)
    for det in ("integrity.timer_patch", "integrity.threads", "integrity.output_aliasing"):
        assert v[det]["outcome"] == "cannot_tell" and "not observed" in v[det]["summary"], v[det]


def test_crash_result_carries_the_log_tail(runs):
    _, r = _status(runs, "segfault")
    assert "request cli: eval" in r["log_tail"]


def test_integrity_cached_output(runs):
    _, r = _status(runs, "cached")
    assert r["status"] == "wrong_result" and r["failing_trial"] == 1
    v = checks(r)["integrity.cached_output"]
    assert v["outcome"] == "yes" and v["severity"] == "critical" and v["evidence"] and v["suggested_fix"]


def test_integrity_input_mutation(runs):
    # Right values in a fresh tensor, the input zeroed in place: read back by the judge after every checked call.
    _, r = _status(runs, "mutation")
    assert r["status"] == "ok", r["reason"]
    v = checks(r)["integrity.input_mutation"]
    assert v["outcome"] == "yes" and v["severity"] != "info" and v["evidence"], v
    assert checks(r)["integrity.output_aliasing"]["outcome"] == "no"


def test_output_aliasing_an_input_written_in_place_is_caught(runs):
    # Right values, but the output is the input, written in place (on a task whose own output is a new tensor): the
    # judge reads every checked call's inputs back (input_mutation) and the runner sees the shared storage
    # (output_aliasing), both errors. (The judge used to overwrite one input slot of every timed batch before the
    # delivery, which made this output wrong; that overwrite comes after the delivery now, red team 6.)
    _, r = _status(runs, "alias_input")
    flagged = {v["detector"]: v["severity"] for v in r["runtime_checks"] if v["outcome"] == "yes"}
    assert r["status"] == "ok" and r["trials"] == 3, (r["status"], r["reason"])
    assert flagged.get("integrity.input_mutation") == "error" and flagged.get("integrity.output_aliasing") == "error", \
        flagged


@pytest.mark.parametrize("name", ["view_own", "view_clone"])
def test_a_task_whose_output_is_a_view_of_its_input(runs, name):
    # The reference's output is a view of its input, and so is the own copy's: both are copied out before the judge
    # overwrites a slot (red team 6: overwritten before, the reference's own output was wrong, and every candidate).
    # The flags read from the outputs and the processes, not from the clock: the call does no work, so its speedup is
    # noise (0.6-7.5x quiet under these settings), and this module's four evaluations at once on a 2-core machine can
    # put it above the plausible bound (judge.measurable and its unit test cover when that is a finding). A test of
    # logic does not depend on a measured time.
    _, r = _status(runs, name)
    assert r["status"] == "ok", (name, r["status"], r["reason"])
    assert not [v["detector"] for v in r["runtime_checks"] if v["outcome"] == "yes"
                and v["severity"] in ("error", "critical") and v["detector"] != "integrity.implausible_speedup"], checks(r)


def test_torch_empty_games_fail(runs):
    # The freed reference output was overwritten with NaN, so unwritten memory is never "correct".
    _, r = _status(runs, "empty_games")
    assert r["status"] == "wrong_result"


def test_integrity_timer_patch(runs):
    _, r = _status(runs, "timer_patch")
    v = checks(r)["integrity.timer_patch"]
    assert v["outcome"] == "yes" and v["severity"] == "critical"
    assert "time.perf_counter" in v["summary"] and "torch.cuda.Event" in v["summary"]
    # the worker's own clock was taken before the patch: timings stay real
    assert r["candidate"]["median_ms"] > 1e-4


def test_integrity_threads_and_speedup_bound(runs):
    _, r = _status(runs, "thread")
    assert checks(r)["integrity.threads"]["outcome"] == "yes"
    assert "kwb-test-background" in checks(r)["integrity.threads"]["evidence"][0]["text"]
    # Every speedup is above a bound of 1e-6: refused where the judge could measure eager's calls, "cannot tell" where
    # this CPU put them within the plumbing's noise. Which of the two is the machine's clock (red on a fresh clone
    # once); the choice itself is test_worker_units'
    # test_a_speedup_above_the_bound_is_a_finding_only_where_eagers_calls_stand_out_of_the_noise. Never passed.
    v = checks(r)["integrity.implausible_speedup"]
    assert (v["outcome"] == "yes" and v["severity"] == "error") or \
        (v["outcome"] == "cannot_tell" and "within the plumbing's noise" in v["summary"]), v
    assert "eager" in v["summary"] and "above the plausible" in v["summary"]


def test_integrity_precision_downgrade(runs):
    _, r = _status(runs, "bf16")
    assert r["status"] == "ok"  # passes the loose tolerance it was given...
    v = checks(r)["integrity.precision"]
    assert v["outcome"] == "yes", v  # ...but its error against fp64 gives the bf16 math away
    assert r["max_abs_err_fp64"] > 1e-3


@pytest.mark.parametrize("name", ["gru", "gru_hidden", "lstm", "lstm_fc"])
def test_recurrent_explicit_gate_math_matches_seeded_reference(runs, name):
    rc, r = _status(runs, name)
    assert r["status"] == "ok", r["reason"]
    assert r["max_abs_err"] < 1e-5
    # lstm_fc draws h0/c0 with torch.randn in forward: the fp64 reference must see the same draws
    assert r["max_abs_err_fp64"] < 1e-5
    assert checks(r)["integrity.precision"]["outcome"] == "no"
