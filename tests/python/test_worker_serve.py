# SPDX-License-Identifier: MIT
"""The worker's serve mode (core/eval/PROTOCOL.md), driven as the C++ host drives it."""
import signal

import pytest

from conftest import WorkerPool, cand, counted_samples, eval_request, serve, task


@pytest.fixture(scope="module")
def pool(torch_python):
    p = WorkerPool(9)
    yield p
    p.close()


RESULT_KEYS = {"status", "reason", "log_tail", "device", "on_gpu", "torch_version", "trials", "failing_trial",
               "max_abs_err", "mean_abs_err", "max_abs_err_fp64", "atol", "rtol", "candidate", "eager", "graph",
               "runtime_checks", "candidate_peak_bytes", "reference_peak_bytes", "memory_note", "profile", "profile_note", "sandboxed", "sandbox_note", "wall_seconds"}
STATS_KEYS = {"median_ms", "mean_ms", "std_ms", "min_ms", "max_ms", "cv", "samples"}


def test_ready_phases_and_result(pool):
    ready, evs, rc, _ = serve(eval_request(task("level1/1_ReLU.py"), cand("relu_correct.py"), id="r42"), pool.take())
    assert ready["v"] == 2 and ready["pid"] > 0 and ready["torch"] and ready["device"] == "cpu"
    assert set(ready) >= {"python", "triton", "cuda", "gpu_name", "sm_count"}
    assert all(e["v"] == 2 and e["id"] == "r42" for e in evs)
    phases = [e["phase"] for e in evs if e["event"] == "phase"]
    assert phases == ["loading_task", "loading_candidate", "compiling", "running"]
    results = [e for e in evs if e["event"] == "result"]
    assert len(results) == 1 and evs[-1] is results[0]
    r = results[0]["result"]
    assert set(r) == RESULT_KEYS
    assert r["status"] == "ok", r["reason"]
    assert r["trials"] == 3 and r["failing_trial"] == -1 and r["max_abs_err"] == 0.0
    assert set(r["candidate"]) == STATS_KEYS and counted_samples(r, 3)
    assert r["graph"]["samples"] == 0  # no CUDA graph on a CPU
    assert r["candidate"]["median_ms"] > 0
    assert rc == 0


def test_candidate_stdout_never_reaches_the_protocol(pool):
    _, evs, rc, w = serve(eval_request(task("level1/1_ReLU.py"), cand("relu_prints.py")), pool.take())
    # next_event() parses every protocol line as JSON, so any stray print would have failed already
    result = evs[-1]["result"]
    assert result["status"] == "ok"
    assert "forged" not in result["reason"]
    assert "hello from forward" in w.stderr and "raw write to fd 1" in w.stderr
    assert len([e for e in evs if e["event"] == "result"]) == 1


def test_baseline_op(pool):
    req = {"v": 2, "id": "b1", "op": "baseline", "task_file": task("level1/2_Softmax.py"), "device": "cpu",
           "warmup": 1, "repeat": 4, "seed": 42}
    _, evs, rc, _ = serve(req, pool.take())
    r = evs[-1]["result"]
    assert r["status"] == "ok" and r["eager"]["samples"] == 4 and r["candidate"]["samples"] == 0
    assert r["eager"]["min_ms"] <= r["eager"]["median_ms"] <= r["eager"]["max_ms"]


def test_bad_requests_get_error_events(pool):
    # (version and missing-file checks: test_worker_units.py, without a process each)
    _, evs, rc, _ = serve({"v": 2, "id": "x", "op": "fly"}, pool.take())
    assert evs[-1]["event"] == "error" and "bad request" in evs[-1]["message"] and "unknown op" in evs[-1]["message"]
    assert evs[-1]["id"] == "x" and rc != 0
    w = pool.take()
    assert w.next_event()["event"] == "ready"
    w.proc.stdin.write("this is not json\n")
    w.proc.stdin.flush()
    evs = w.events_until_end()
    assert evs[-1]["event"] == "error" and "not JSON" in evs[-1]["message"]


def test_os_exit_takes_only_the_candidates_process(pool):
    # The candidate runs in its own process: its os._exit(3) ends that one, and the judge reports it.
    _, evs, rc, _ = serve(eval_request(task("level1/1_ReLU.py"), cand("relu_exit.py")), pool.take())
    r = evs[-1]["result"]
    assert r["status"] == "crash" and "exited with code 3" in r["reason"] and "compiling" in r["reason"], r["reason"]
    assert rc == 0


def test_segfault_takes_only_the_candidates_process(pool):
    _, evs, rc, _ = serve(eval_request(task("level1/1_ReLU.py"), cand("relu_segfault.py")), pool.take())
    r = evs[-1]["result"]
    assert r["status"] == "crash" and "SIGSEGV" in r["reason"], r["reason"]


def test_hang_reaches_running_then_is_killed(pool):
    w = pool.take()
    assert w.next_event()["event"] == "ready"
    w.send(eval_request(task("level1/1_ReLU.py"), cand("relu_hang.py")))
    phases = []
    while "running" not in phases:
        ev = w.next_event()
        if ev is not None and ev["event"] == "result":  # say why, as the host's user would read it
            r = ev["result"]
            pytest.fail("a result after phases %s: %s: %s\n%s" % (phases, r.get("status"), r.get("reason"),
                                                                    (r.get("log_tail") or "")[-3000:]))
        assert ev is not None and ev["event"] == "phase", ev
        phases.append(ev["phase"])
    # The worker is now spinning in the candidate; the host's run limit would kill its group.
    assert w.proc.poll() is None
    w.kill()
    assert w.proc.returncode == -signal.SIGKILL


def test_detect_op_answers_verdicts_or_a_clear_error(pool):
    req = {"v": 2, "id": "d1", "op": "detect", "task_file": task("level1/1_ReLU.py"),
           "candidate_file": cand("triton_relu.py"), "gpu_sm_count": 132}
    _, evs, rc, _ = serve(req, pool.take())
    last = evs[-1]
    if last["event"] == "error":  # the detectors subpackage is not there (yet)
        assert "kwb_worker.detect" in last["message"]
    else:
        assert last["event"] == "result" and isinstance(last["verdicts"], list)
        for v in last["verdicts"]:
            assert {"detector", "outcome", "severity", "summary", "evidence", "suggested_fix"} <= set(v)
