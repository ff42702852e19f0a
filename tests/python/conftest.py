# SPDX-License-Identifier: MIT
"""Shared helpers for the worker tests: paths, and drivers for the serve and one-shot modes.

Every test runs the worker as a real subprocess of /usr/bin/python3 (or KWB_TEST_PYTHON), the
interpreter with torch. Waiting is done on queues with a generous safety timeout, never by sleeping.
"""
import concurrent.futures
import json
import os
import queue
import signal
import subprocess
import sys
import threading

import pytest

sys.path.insert(0, os.path.join(os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")),
                                "core", "eval", "worker"))
from kwb_worker.host import open_line  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
WORKER_DIR = os.path.join(ROOT, "core", "eval", "worker")
WORKER = os.path.join(WORKER_DIR, "kwb_worker.py")
TASKS = os.path.join(ROOT, "tasks")
DATA = os.path.join(ROOT, "tests", "data")
PYTHON = os.environ.get("KWB_TEST_PYTHON", "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable)
SAFETY_S = 300  # only a broken worker hits this (an evaluation starts three processes with torch: on 2 busy cores
# eight at once take minutes)


def task(rel):
    """tasks/<rel> or tests/data/tasks/<rel>."""
    for base in (TASKS, os.path.join(DATA, "tasks")):
        p = os.path.join(base, rel)
        if os.path.exists(p):
            return p
    raise FileNotFoundError(rel)


def detect_task(name):
    """A task of the detector corpus by file name: its own (tests/data/detect/tasks/) or a shipped one
    (tasks/level*/), which the corpus uses as it is rather than through a copy."""
    for base in [os.path.join(DATA, "detect", "tasks")] + sorted(
            os.path.join(TASKS, d) for d in os.listdir(TASKS) if d.startswith("level")):
        p = os.path.join(base, name)
        if os.path.exists(p):
            return p
    raise FileNotFoundError(name)


def cand(name):
    return os.path.join(DATA, "candidates", name)


class ServeWorker:
    """A `kwb_worker.py serve` process with line-by-line access to its protocol output."""

    def __init__(self):
        self.proc = subprocess.Popen([PYTHON, "-u", WORKER, "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, universal_newlines=True, start_new_session=True)
        self.lines = queue.Queue()
        self.stderr_lines = []
        threading.Thread(target=self._pump, args=(self.proc.stdout, self.lines.put), daemon=True).start()
        self.err_thread = threading.Thread(target=self._pump, args=(self.proc.stderr, self.stderr_lines.append),
                                           daemon=True)
        self.err_thread.start()
        self.raw = []
        self.key = None

    @staticmethod
    def _pump(stream, sink):
        for line in iter(stream.readline, ""):
            sink(line)
        sink(None)

    def next_event(self):
        """The next protocol line parsed as JSON, or None at EOF. Fails the test on a non-JSON line, and
        on an unsigned or badly signed line once a request with a key was sent (as the host would refuse it)."""
        line = self.lines.get(timeout=SAFETY_S)
        if line is None:
            return None
        self.raw.append(line)
        ev = json.loads(line)
        if self.key is not None:
            opened = open_line(line, self.key)
            assert opened is not None, "a line the host would refuse: %s" % line[:200]
            return opened
        return ev

    def send(self, req):
        if req.get("key"):
            self.key = bytes.fromhex(req["key"])
        self.proc.stdin.write(json.dumps(req) + "\n")
        self.proc.stdin.flush()

    def events_until_end(self):
        evs = []
        while True:
            ev = self.next_event()
            if ev is None:
                break
            evs.append(ev)
        self.proc.wait(timeout=SAFETY_S)
        self.err_thread.join(timeout=SAFETY_S)
        return evs

    def kill(self):
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait(timeout=SAFETY_S)

    @property
    def stderr(self):
        return "".join(l for l in self.stderr_lines if l)


class WorkerPool:
    """Pre-started serve workers (as the host pre-starts them): their `import torch` runs while earlier tests
    run, which keeps the suite fast on a busy machine. At most `ahead` wait at a time, each with its two
    pre-started runners (~120 MB of memory a process on this machine): a whole file's worth at once (27 processes,
    3.2 GB) is more than a small CI machine should hold beside the other tests."""

    def __init__(self, n, ahead=3):
        self.m_left = n
        self.m_ahead = ahead
        self.m_free = []
        self._refill()

    def _refill(self):
        while self.m_left > 0 and len(self.m_free) < self.m_ahead:
            self.m_free.append(ServeWorker())
            self.m_left -= 1

    def take(self):
        w = self.m_free.pop(0) if self.m_free else ServeWorker()
        self._refill()
        return w

    def close(self):
        for w in self.m_free:
            w.kill()


def serve(req, worker=None):
    """Runs one request through serve mode; returns (ready, [events after ready], returncode, worker)."""
    w = worker or ServeWorker()
    ready = w.next_event()
    assert ready and ready["event"] == "ready", ready
    w.send(req)
    evs = w.events_until_end()
    return ready, evs, w.proc.returncode, w


def eval_request(task_file, cand_file, **kw):
    req = {"v": 2, "id": "t1", "op": "eval", "key": os.urandom(32).hex(), "task_file": task_file, "candidate_file": cand_file,
           "device": "cpu", "trials": 3, "warmup": 1, "repeat": 3, "atol": 1e-4, "rtol": 1e-4, "seed": 42,
           "baselines": True, "graph_baseline": True, "profile": False, "integrity": True}
    req.update(kw)
    return req


def cli(*args, timeout=SAFETY_S):
    """Runs `kwb_worker.py ARGS --json`; returns (returncode, result dict or None, stderr)."""
    p = subprocess.run([PYTHON, WORKER] + list(args) + ["--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, timeout=timeout)
    result = json.loads(p.stdout) if p.stdout.strip() else None
    return p.returncode, result, p.stderr


def cli_many(cases, parallel=4):
    """Runs {name: [args...]} through cli() concurrently; returns {name: (rc, result, stderr)}."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=parallel) as pool:
        futures = {name: pool.submit(cli, *args) for name, args in cases.items()}
        return {name: f.result() for name, f in futures.items()}


def counted_samples(result, repeat):
    """The timed samples of an ok result: `repeat` each, or on a busy CPU as many quiet frames for every kind as the
    kind with the fewest has, at least a third of `repeat` (kwb_worker/judge.py quiet_count; the host's bound,
    core/eval/resultcheck.cpp). Returns the count."""
    n = result["candidate"]["samples"]
    assert -(-repeat // 3) <= n <= repeat and result["eager"]["samples"] == n, (n, result["eager"]["samples"], repeat)
    return n


def checks(result):
    """runtime_checks as {detector: verdict}."""
    return {v["detector"]: v for v in result["runtime_checks"]}


@pytest.fixture(scope="session")
def torch_python():
    r = subprocess.run([PYTHON, "-c", "import torch"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if r.returncode != 0:
        pytest.skip("%s has no torch" % PYTHON)
    return PYTHON
