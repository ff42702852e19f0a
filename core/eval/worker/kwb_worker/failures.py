# SPDX-License-Identifier: MIT
"""Maps an exception raised by a candidate to an EvalResult status and a one-line reason."""
import os
import traceback

NO_GPU_REASON = "needs a CUDA GPU; this machine has none"

# Messages of errors after which the CUDA context is unusable: the process is as good as crashed.
_CRASH_MARKERS = (
    "illegal memory access",
    "unspecified launch failure",
    "device-side assert",
    "misaligned address",
    "illegal instruction",
    "cudaErrorLaunchFailure",
    "CUDA_ERROR_ILLEGAL_ADDRESS",
)
_OOM_MARKERS = (
    "out of memory",
    "can't allocate memory",
    "not enough memory",
    "CUDA_ERROR_OUT_OF_MEMORY",
)
_NO_GPU_MARKERS = (
    "Torch not compiled with CUDA enabled",
    "Found no NVIDIA driver",
    "No CUDA GPUs are available",
    "0 active drivers",
    "cannot be accessed from Triton (cpu tensor?)",
    "CUDA_HOME environment variable is not set",
    "no CUDA-capable device",
)
_COMPILE_MARKERS = ("Error building extension", "error compiling", "nvcc fatal", "ninja: build stopped")


class Failure(Exception):
    """An evaluation outcome that ends the evaluation early (status + reason)."""

    def __init__(self, status, reason):
        super().__init__(reason)
        self.status = status
        self.reason = reason


def one_line(text, limit=300):
    text = " ".join(str(text).strip().splitlines()[:1]) if str(text).strip() else ""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _where(exc, candidate_file):
    """'candidate.py:12' for the innermost frame inside the candidate file, or ''."""
    if not candidate_file:
        return ""
    found = ""
    tb = exc.__traceback__
    target = os.path.abspath(candidate_file)
    for frame in traceback.extract_tb(tb):
        if os.path.abspath(frame.filename) == target:
            found = "%s:%d" % (os.path.basename(frame.filename), frame.lineno)
    if isinstance(exc, SyntaxError) and exc.filename and os.path.abspath(exc.filename) == target:
        found = "%s:%s" % (os.path.basename(exc.filename), exc.lineno)
    return found


def _is_triton_compile_error(exc):
    mod = type(exc).__module__ or ""
    name = type(exc).__name__
    return mod.startswith("triton.compiler") or mod.startswith("triton.language") and name.endswith("Error") \
        or name in ("CompilationError", "CompileTimeAssertionFailure", "UnsupportedLanguageConstruct",
                    "OutOfResources", "PTXASError")


def classify(exc, phase, candidate_file=None, needs_gpu=False, on_gpu=False):
    """Returns (status, reason) for an exception raised while `phase` (loading_candidate, compiling,
    running) was under way. `needs_gpu`: the candidate's source uses Triton or CUDA."""
    msg = str(exc)
    name = type(exc).__name__
    where = _where(exc, candidate_file)
    prefix = "%s at %s: " % (name, where) if where else "%s: " % name
    line = prefix + one_line(msg)

    if not on_gpu:
        if isinstance(exc, ImportError) and (getattr(exc, "name", None) or "").split(".")[0] == "triton":
            return "no_gpu", NO_GPU_REASON + " (the candidate imports triton)"
        if any(m in msg for m in _NO_GPU_MARKERS) or (needs_gpu and phase != "loading_candidate"
                                                        and not isinstance(exc, (SyntaxError, ImportError))):
            return "no_gpu", NO_GPU_REASON + " (" + line + ")"

    if isinstance(exc, SyntaxError):
        return "syntax_error", "%s at %s: %s" % (name, where or "line %s" % exc.lineno, exc.msg)
    if isinstance(exc, ImportError) and phase == "loading_candidate":
        return "syntax_error", line
    if isinstance(exc, MemoryError) or name == "OutOfMemoryError" or any(m in msg for m in _OOM_MARKERS):
        return "out_of_memory", line
    if any(m in msg for m in _CRASH_MARKERS):
        return "crash", line
    if _is_triton_compile_error(exc) or any(m in msg for m in _COMPILE_MARKERS) \
            or name in ("CalledProcessError",) and phase in ("loading_candidate", "compiling"):
        return "compile_error", line
    return "runtime_error", line
