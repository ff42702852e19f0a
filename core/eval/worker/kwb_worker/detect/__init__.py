# SPDX-License-Identifier: MIT
"""Static detectors: read a candidate kernel's structure and explain what they find.

Why here, in the worker's Python, and not in the C++ engine: the detectors parse the candidate
with Python's own parser (the standard `ast` module), so a variable name, a comment or a string
that merely looks like a kernel construct cannot fool them, and Python syntax is read exactly as
the interpreter that will run it reads it. The worker process already runs untrusted code and
already has Python, so the GUI process needs no embedded interpreter (no Python.h beside Qt,
no interpreter state shared with the UI thread). The candidate is parsed, never imported or
run, and the detectors do not import torch or triton, so they start in milliseconds.

Entry point: `run_detectors(task_source, candidate_source, sm_count=132, triton_version=None)`,
one verdict dict per detector in DETECTORS, in the protocol's form (core/eval/PROTOCOL.md).
`python3 -m kwb_worker.detect TASK CANDIDATE` prints the list as JSON.
"""
from . import flow, integrity, kernels, switching, tampering
from .source import Resolver, SourceFile, TaskInfo
from .verdicts import cannot_tell, evidence

DETECTORS = [
    ("persistent_kernel", kernels.persistent_kernel),
    ("launch_bound_loop", flow.launch_bound_loop),
    ("grid_parallelism", kernels.grid_parallelism),
    ("output_requirement", flow.output_requirement),
    ("triton_lint", kernels.triton_lint),
    ("integrity.reference_call", integrity.reference_call),
    ("integrity.fallback", integrity.fallback),
    ("integrity.subclass_reference", integrity.subclass_reference),
    ("integrity.graph_capture", integrity.graph_capture),
    ("integrity.side_stream", integrity.side_stream),
    ("integrity.threads", integrity.threads),
    ("integrity.timer_patch", tampering.timer_patch),
    ("integrity.library_patch", tampering.library_patch),
    ("integrity.protocol_write", tampering.protocol_write),
    ("integrity.introspection", tampering.introspection),
    ("integrity.process_exit", tampering.process_exit),
    ("integrity.dynamic_code", tampering.dynamic_code),
    ("integrity.caching", integrity.caching),
    ("integrity.call_switch", switching.call_switch),
    ("integrity.precision", integrity.precision),
]

DETECTOR_IDS = [name for name, _ in DETECTORS]


def run_detectors(task_source, candidate_source, sm_count=132, triton_version=None):
    """All detectors on one candidate; one verdict dict per detector, in DETECTOR_IDS order.
    A candidate that does not parse gets "cannot_tell" from every detector, with the syntax
    error as evidence; a detector that fails internally says so instead of raising."""
    src = SourceFile(candidate_source, "candidate")
    task = TaskInfo(SourceFile(task_source, "task"))
    if src.tree is None:
        e = src.error
        ev = [evidence(e.lineno or 0, e.lineno or 0, "syntax error: %s" % e.msg)]
        return [cannot_tell(name, "the candidate does not parse (line %s: %s)" % (e.lineno, e.msg), ev)
                for name in DETECTOR_IDS]
    resolver = Resolver(src, task)
    ctx = flow.Context(src, task, resolver, int(sm_count or 132), triton_version)
    out = []
    for name, fn in DETECTORS:
        try:
            out.append(fn(src, task, ctx))
        except Exception as e:  # a detector bug must not hide the other verdicts
            out.append(cannot_tell(name, "detector failed: %s: %s" % (type(e).__name__, e)))
    return out
