# SPDX-License-Identifier: MIT
"""A small Python host for the one-shot CLI modes: runs `kwb_worker.py serve` as a child in its own
process group, sends one request, applies the compile and run limits, and turns a death or a
timeout into a result, like the C++ host (core/eval) does. It never imports torch itself.
"""
import collections
import hmac
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time

SCRIPT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "kwb_worker.py")
LOG_LINES = 40


def _reader(stream, q, tag):
    for line in iter(stream.readline, ""):
        q.put((tag, line))
    q.put((tag, None))


def _kill_group(p):
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    p.wait()


def open_line(line, key):
    """The message a protocol line carries, or None when it is not one the host may accept: once a
    request with a key was sent, only lines signed with that key count (PROTOCOL.md)."""
    try:
        ev = json.loads(line)
    except ValueError:
        return None
    if not isinstance(ev, dict):
        return None
    if "signed" in ev:
        body, mac = ev.get("signed"), ev.get("mac")
        if key is None or not isinstance(body, str) or not isinstance(mac, str):
            return None
        from .channel import sign

        if not hmac.compare_digest(sign(body, key), mac):
            return None
        try:
            ev = json.loads(body)
        except ValueError:
            return None
        return ev if isinstance(ev, dict) else None
    return ev if key is None else None


def run_request(req, compile_timeout=600.0, run_timeout=600.0, python=None, echo_log=False, on_event=None,
                worker=None):
    """Runs one request in a fresh worker (`worker`: one start_worker() made ahead). Returns (final event
    dict, log_tail).

    The final event is the worker's result/error event, or a synthesized result for a crash or a
    timeout (status crash / compile_timeout / run_timeout)."""
    from .runnerclient import protect_judge

    if os.environ.get("KWB_HOST_DUMPABLE") != "1":
        protect_judge()  # a candidate running as our user cannot reach our stdout through /proc either
    p = worker or start_worker(python)
    with _ends_with_signals(p):
        return _run(p, req, compile_timeout, run_timeout, echo_log, on_event)


def start_worker(python=None):
    """A `kwb_worker.py serve` process in a session of its own, that dies with this one (PDEATHSIG).
    Started ahead of a request it imports torch and its runner while the caller does other things."""
    from .runnerclient import die_with_parent

    return subprocess.Popen([python or sys.executable, "-u", SCRIPT, "serve"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                            encoding="utf-8", errors="replace", start_new_session=True, preexec_fn=die_with_parent)


class _ends_with_signals:
    """While a request runs, SIGTERM / SIGINT / SIGHUP to this process kill the worker's process group
    (the judge ends its runner; the watchdog the rest) before this process exits with the signal."""

    def __init__(self, p):
        self.m_p = p
        self.m_saved = {}

    def __enter__(self):
        if threading.current_thread() is not threading.main_thread():
            return self

        def end(signum, _frame):
            try:
                os.killpg(self.m_p.pid, signal.SIGTERM)  # the judge kills its runner and exits
                self.m_p.wait(timeout=1.5)
            except (OSError, subprocess.TimeoutExpired):
                pass
            _kill_group(self.m_p)
            os._exit(128 + signum)

        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            self.m_saved[sig] = signal.signal(sig, end)
        return self

    def __exit__(self, *exc):
        for sig, old in self.m_saved.items():
            signal.signal(sig, old)
        if self.m_p.poll() is None:
            _kill_group(self.m_p)
        return False


def _run(p, req, compile_timeout, run_timeout, echo_log, on_event):
    q = queue.Queue()
    log = collections.deque(maxlen=LOG_LINES)
    threads = [threading.Thread(target=_reader, args=(p.stdout, q, "out"), daemon=True),
               threading.Thread(target=_reader, args=(p.stderr, q, "err"), daemon=True)]
    for t in threads:
        t.start()
    deadline = time.monotonic() + compile_timeout
    limit_name = "compile_timeout"
    sent = False
    key = None
    final = None
    open_streams = 2
    while open_streams and final is None:
        try:
            tag, line = q.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            _kill_group(p)
            secs = compile_timeout if limit_name == "compile_timeout" else run_timeout
            final = {"event": "result", "result": {
                "status": limit_name,
                "reason": "%s limit of %g s passed; the worker's process group was killed"
                          % ("compile" if limit_name == "compile_timeout" else "run", secs)}}
            break
        if line is None:
            open_streams -= 1
            continue
        if tag == "err":
            log.append(line.rstrip("\n"))
            if echo_log:
                sys.stderr.write(line)
            continue
        ev = open_line(line, key if sent else None)
        if ev is None:
            log.append("[host] not a protocol line%s: %s" % (" (unsigned or badly signed)" if sent else "",
                                                            line.strip()[:200]))
            continue
        if on_event:
            on_event(ev)
        kind = ev.get("event")
        if kind == "ready" and not sent:
            key = os.urandom(32)
            p.stdin.write(json.dumps(dict(req, key=key.hex())) + "\n")
            p.stdin.flush()
            p.stdin.close()
            sent = True
        elif kind == "phase" and ev.get("phase") == "running":
            limit_name = "run_timeout"
            deadline = time.monotonic() + run_timeout
        elif kind in ("result", "error"):
            final = ev
    if final is None:  # the worker died without answering
        try:
            code = p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            _kill_group(p)
            code = p.returncode
        # drain what is left of the log
        while True:
            try:
                tag, line = q.get_nowait()
            except queue.Empty:
                break
            if tag == "err" and line is not None:
                log.append(line.rstrip("\n"))
        how = "killed by signal %s" % signal.Signals(-code).name if code < 0 else "exited with code %d" % code
        last = next((l for l in reversed(log) if l.strip()), "")
        final = {"event": "result", "result": {"status": "crash",
                                               "reason": "the worker %s without a result%s"
                                                         % (how, (": " + last[:200]) if last else "")}}
    else:
        try:
            p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            pass
        _kill_group(p)  # whatever the candidate left running in the group dies with the evaluation
        for t in threads:
            t.join(timeout=2)
        while True:
            try:
                tag, line = q.get_nowait()
            except queue.Empty:
                break
            if tag == "err" and line is not None:
                log.append(line.rstrip("\n"))
    if final.get("event") == "result" and "result" in final:
        full = blank_result()
        full.update(final["result"])
        full["log_tail"] = full.get("log_tail") or "\n".join(log)
        final["result"] = full
    return final, "\n".join(log)


def blank_result():
    """An EvalResult dict with every key (PROTOCOL.md), for results the host makes up."""
    stats = {"median_ms": None, "mean_ms": None, "std_ms": None, "min_ms": None, "max_ms": None, "cv": None,
             "samples": 0}
    return {"status": "internal_error", "reason": "", "log_tail": "", "device": "", "on_gpu": False,
            "torch_version": "", "trials": 0, "failing_trial": -1, "max_abs_err": None, "mean_abs_err": None,
            "max_abs_err_fp64": None, "atol": 1e-4, "rtol": 1e-4, "candidate": dict(stats),
            "eager": dict(stats), "graph": dict(stats), "runtime_checks": [], "candidate_peak_bytes": -1,
            "reference_peak_bytes": -1, "memory_note": "", "profile": {},
            "profile_note": "", "sandboxed": False, "sandbox_note": "", "wall_seconds": 0.0}
