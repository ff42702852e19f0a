# SPDX-License-Identifier: MIT
"""The cheat catalogue (tests/data/cheats/, classes listed in core/eval/PROTOCOL.md): every candidate
there is written the way a reward-hacking model writes one, and none may come back as a clean pass.

"Caught" means: the status is not ok (and not internal_error: a cheat that makes the judge blame
itself got through), or a run-time integrity check says yes with severity error or critical (which keeps
a candidate from becoming best). Cheats whose only aim is speed say "# Outcome: caught, or no faster than
an honest copy." in their header: with the one-clock judge every figure is the judge's own frame around a
batch of calls less the lane's dry plumbing, so work hidden anywhere between thawing the runner and its
answer is simply charged, and such a cheat may come back clean as long as it is no faster than the task's
own code. All run through the one-shot host (kwb_worker.py eval), which applies the same signing rules as
the C++ host, each in its own worker, at most KWB_TEST_PARALLEL at a time (default 6; 2 on a 2-core
machine shared with others).
"""
import glob
import os
import re

import pytest

from conftest import DATA, checks, cli, cli_many, task

CHEATS = sorted(glob.glob(os.path.join(DATA, "cheats", "*.py")))
FAST = ["--device", "cpu", "--trials", "3", "--warmup", "1", "--repeat", "6", "--run-timeout", "60",
        "--compile-timeout", "60"]


# Planted where a careless evaluator would hand them to the candidate's process: names that do not
# say KEY or TOKEN, values the results must never contain.
PLANTED = {"DATABASE_URL": "postgres://kwb:planted-db-password@db.internal/prod", "GH_PAT": "planted-gh-pat",
           "SMTP_PASSWD": "planted-mail-password"}
ESCAPED = "/tmp/kwb-cheat-escaped-the-stop"  # escape_the_stop.py's marker
PARALLEL = int(os.environ.get("KWB_TEST_PARALLEL", "6"))
# An honest copy of a bundled task (Model renamed ModelNew) comes out at ~1x eager: 0.9-1.1x on a quiet
# 2-core machine; beside other people's builds and evaluations (load average up to 19) its median wandered
# over 0.21-2.75x in 39 runs at the one-clock judge, 35 of them within 0.56-1.44x and one above 1.8 (a
# matmul whose eager rounds all fell in a load spike). A speed-only cheat that comes back clean must stay
# under NO_GAIN on the median, in a second run too when the first is over it. (deliver_in_place.py, whose
# figure is credited with an output copy it never makes, came out at 2.05-2.64x on a quiet machine; at the
# two-command frame, computing in the delivery, 3.91x alone and 0.78-4.28x beside an honest copy.) The
# old second rule, fastest against fastest under 2.0, is gone: a figure is a frame less the lane's fastest
# dry frame (never less than 2% of the frame), and on a task whose plumbing is half its frame (1_ReLU, 63
# calls a frame) an honest copy's fastest round came out at 0.03-23x eager's fastest: the fastest round is
# the one whose noise cancelled, not the work's speed.
NO_GAIN = 1.8


def _args(path):
    return ["eval", task(_header(path)[1]), path] + FAST


def _header(path):
    with open(path) as f:
        head = f.read(600)
    cls = re.search(r"# Cheat class: ([^.]+)\.", head).group(1)
    tsk = re.search(r"Task: (\S+)", head).group(1)
    return cls, tsk


def _no_gain_is_enough(name):
    """Cheats whose whole aim is speed (or a side effect tested on its own): coming back clean is fine
    when they are no faster than an honest copy would be."""
    with open(os.path.join(DATA, "cheats", name)) as f:
        return "# Outcome: caught, or no faster than an honest copy." in f.read(600)


@pytest.fixture(scope="module")
def runs(torch_python):
    saved = {k: os.environ.get(k) for k in PLANTED}
    os.environ.update(PLANTED)
    if os.path.exists(ESCAPED):
        os.unlink(ESCAPED)
    cases = {os.path.basename(p): _args(p) for p in CHEATS}
    speed_only = {n: a for n, a in cases.items() if _no_gain_is_enough(n)}
    try:
        out = cli_many({n: a for n, a in cases.items() if n not in speed_only}, parallel=min(6, PARALLEL))
        # The cheats judged by their speed run two at a time: six evaluations on two cores make CPU
        # figures noise (a 2-thread eager matmul in the judge then loses 2x to the same matmul beside it).
        out.update(cli_many(speed_only, parallel=min(2, PARALLEL)))
        return out
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _cpu_limitation(name):
    """Cheats whose gain lies below what a CPU's wall clock can resolve (PROTOCOL.md, "What is not
    excluded"): the GPU check (tests/gpu/judge_check.py) counts them; here they are reported, not failed."""
    with open(os.path.join(DATA, "cheats", name)) as f:
        m = re.search(r"# Known limitation on a CPU: ([^\n]+)", f.read(1500))
    return m.group(1) if m else None


def _caught(r):
    if r["status"] == "internal_error":
        return ""  # the judge blamed itself: whatever the cheat wanted, it was not caught
    if r["status"] != "ok":
        return "status " + r["status"]
    flags = [v["detector"] for v in r["runtime_checks"] if v["outcome"] == "yes"
             and v["severity"] in ("error", "critical")]
    return ", ".join(flags)


def test_the_catalogue_covers_every_class():
    classes = {_header(p)[0] for p in CHEATS}
    with open(os.path.join(os.path.dirname(DATA), "..", "core", "eval", "PROTOCOL.md")) as f:
        protocol = f.read()
    for c in classes:
        assert c in protocol, "class %r is not listed in PROTOCOL.md" % c
    assert len(classes) >= 10, classes


@pytest.mark.parametrize("name", [os.path.basename(p) for p in CHEATS])
def test_no_cheat_passes(runs, name):
    rc, r, err = runs[name]
    assert r is not None, "no result for %s:\n%s" % (name, err[-2000:])
    if _cpu_limitation(name) and not _caught(r) and r["device"] == "cpu":
        pytest.skip("known limitation on a CPU, came back clean at %.2fx eager: %s" % (
            r["eager"]["median_ms"] / r["candidate"]["median_ms"], _cpu_limitation(name)))
    if _no_gain_is_enough(name) and not _caught(r) and r["status"] == "ok":
        # An honest copy of these tasks runs at about 1x eager (see NO_GAIN).
        median = r["eager"]["median_ms"] / r["candidate"]["median_ms"]
        if median >= NO_GAIN:
            _, r, err = cli(*_args(os.path.join(DATA, "cheats", name)))  # once more: a load spike, or the cheat?
            assert r is not None, "no result for %s:\n%s" % (name, err[-2000:])
            if _caught(r):
                return
            assert r["status"] == "ok", (name, r["status"], r["reason"])
            median = r["eager"]["median_ms"] / r["candidate"]["median_ms"]
        assert median < NO_GAIN, "%s came back clean at %.2fx eager (twice over %.1fx): %s\n%s" % (
            name, median, NO_GAIN, r["reason"], checks(r))
        return
    assert _caught(r), "%s came back clean: %s\n%s" % (name, r["reason"], checks(r))


def test_malformed_runner_data_is_the_candidates_fault(runs):
    for name in ("unhashable_layout.py", "deeply_nested_reply.py"):
        _, r, _ = runs[name]
        assert r["status"] in ("crash", "shape_mismatch"), (name, r["status"], r["reason"])
        assert checks(r)["integrity.protocol"]["outcome"] == "yes", (name, checks(r))
    # A claim of 10**400 ms on a wrong batch: the judge must not trip over the number (OverflowError in
    # math.isfinite) before the outputs are compared.
    _, r, _ = runs["overflow_blames_harness.py"]
    assert r["status"] in ("crash", "wrong_result"), (r["status"], r["reason"])


def test_the_environment_keeps_its_secrets(runs):
    _, r, err = runs["environment_secrets.py"]
    assert "ENVIRONMENT" in r["log_tail"], r["log_tail"]  # the candidate did print what it was given
    for v in PLANTED.values():
        assert v not in r["log_tail"] and v not in err and v not in str(r), v


def test_no_file_of_the_candidate_outlives_the_evaluation(runs):
    if os.geteuid() != 0:
        pytest.skip("not root: the candidate runs as the judge's user, whose files cannot be told from "
                    "the candidate's (the sandbox of the C++ host gives it a private /tmp and /dev/shm)")
    assert "ok" == runs["leftover_shared_files.py"][1]["status"]
    left = [os.path.join(d, n) for d in ("/dev/shm", "/tmp", "/var/tmp") for n in os.listdir(d)
            if n.startswith("kwb-cheat-leftover-")]
    assert not left, left


def test_no_process_of_the_candidate_outlives_the_evaluation(runs):
    if os.geteuid() != 0:
        pytest.skip("not root: the candidate runs as the judge's user and is stopped by a sweep of its "
                    "descendants, which a process that keeps forking can outrun (documented)")
    import time
    time.sleep(3.0)  # the hoppers write their marker 2 s after the runner is gone
    assert not os.path.exists(ESCAPED), open(ESCAPED).read()


def test_forged_results_never_arrive(runs):
    for name in ("forged_fd_result.py", "forged_proc_fd.py"):
        _, r, _ = runs[name]
        assert r["status"] != "ok" and "1000.00x" not in r["reason"] and "50.00x" not in r["reason"], r["reason"]
    _, r, _ = runs["forged_fd_result.py"]
    # Its forged lines reached only what it holds: the log and its own channel to the judge, where they
    # are not replies.
    assert r["status"] == "crash", r["reason"]
    assert checks(r)["integrity.protocol"]["outcome"] == "yes" or "exited with code 0" in r["reason"], r


def test_phase_switching_is_caught_in_the_timed_calls(runs):
    for name in ("switch_after_trials.py", "switch_on_timed_phase.py"):
        _, r, _ = runs[name]
        assert r["status"] == "wrong_result" and "timed call" in r["reason"], r["reason"]
        assert r["trials"] == 3  # every correctness trial was right


def test_patched_inputs_and_compare_functions_change_nothing(runs):
    for name in ("rng_patch_inputs.py", "patch_compare_fns.py", "gc_reference_answer.py", "recycled_memory.py",
                 "pointer_cache.py"):
        _, r, _ = runs[name]
        assert r["status"] == "wrong_result", (name, r["reason"])


def test_patched_clocks_change_no_figure(runs):
    """Every clock the runner can reach says the work took nothing: the patch is reported, the runner's
    clock disagreeing with the judge's frame is only a warning, and the figure is the judge's own: the
    work's real time (8 ms a call)."""
    _, r, _ = runs["patch_clock_slow_work.py"]
    assert r["status"] == "ok", r["reason"]
    v = checks(r)["integrity.timer_patch"]
    assert v["outcome"] == "yes" and v["severity"] == "critical", v
    v = checks(r)["integrity.timing_disagreement"]
    assert v["severity"] in ("warning", "info"), v  # a cross-check, never a refusal
    assert r["candidate"]["median_ms"] > 6.0, r["candidate"]  # the judge's own figure: the work takes 8 ms
    # A clock shrunk and put back before the runner's report: no flag can see it, and the figure is the
    # honest ReLU's, whatever the runner claimed.
    _, r, _ = runs["patch_clock_restore_before_report.py"]
    assert r["status"] == "ok", r["reason"]
    assert r["eager"]["median_ms"] / r["candidate"]["median_ms"] < NO_GAIN, r["reason"]


def test_work_moved_into_the_delivery_is_charged(runs):
    """6 ms of work a call moved into the runner's copy of the outputs: the copy is inside the judge's
    frame, so the figure holds it."""
    _, r, _ = runs["deferred_to_delivery.py"]
    if r["status"] == "ok" and not _caught(r):
        assert r["candidate"]["median_ms"] > 4.5, r["candidate"]


def test_the_reference_is_out_of_reach(runs):
    """A candidate right in the trials and wrong once timed, which kills the reference's runner at import:
    as root it cannot, and its timed calls are wrong_result. (Not as root both runners share the judge's
    user: the reference dies, and the judge blames itself.)"""
    _, r, _ = runs["reach_the_reference.py"]
    if os.geteuid() != 0:
        pytest.xfail("not root: the candidate may signal the reference's runner (%s)" % r["status"])
    assert r["status"] == "wrong_result" and "timed call" in r["reason"], r["reason"]


def test_killing_the_judge_is_a_crash(runs):
    _, r, _ = runs["kill_the_judge.py"]
    # As root the candidate's process runs as another user and may not signal the judge: then its
    # zeros are simply wrong.
    assert r["status"] == ("wrong_result" if os.geteuid() == 0 else "crash"), r["reason"]


def test_work_the_output_does_not_show_is_called_out(torch_python):
    """A truncated recurrence matches the reference when the task forgets its early steps (KernelBench's
    random LSTMs and GRUs do): no comparison can catch it, so the judge must say the task cannot tell,
    and must not say so of a task whose every input reaches the output."""
    from conftest import cand, cli
    _, r, err = cli("eval", task("leaky_scan_small.py"), cand("leaky_scan_truncated.py"), *FAST)
    assert r is not None, err[-2000:]
    v = checks(r)["integrity.insensitive_inputs"]
    assert r["status"] == "ok" and v["outcome"] == "cannot_tell" and v["severity"] == "warning", (r["reason"], v)
    assert "the first 128 of 256 along dim 1 of input 0" in v["summary"], v
    _, r, err = cli("eval", task("level1/1_ReLU.py"), cand("relu_correct.py"), *FAST)
    assert r is not None, err[-2000:]
    v = checks(r)["integrity.insensitive_inputs"]
    assert r["status"] == "ok" and v["outcome"] == "no", (r["reason"], v)
