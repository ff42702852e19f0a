# SPDX-License-Identifier: MIT
"""Imports task and candidate files as real modules (never exec: @triton.jit needs a source file)."""
import ast
import importlib.util
import itertools
import os
import sys

_counter = itertools.count()


def import_file(path, prefix):
    """Imports the Python file at `path` under a fresh, unique module name and returns the module."""
    path = os.path.abspath(path)
    stem = "".join(c if c.isalnum() else "_" for c in os.path.splitext(os.path.basename(path))[0])
    name = "kwb_%s_%s_%d" % (prefix, stem, next(_counter))
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError("cannot import %s" % path)
    module = importlib.util.module_from_spec(spec)
    # Registered before running it: dataclasses, pickling and Triton's source lookup need the module
    # in sys.modules, as for any real import.
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module


_cuda = None


def seed_all(seed):
    """Seeds the way KernelBench does (torch CPU and all CUDA generators)."""
    import torch

    global _cuda
    if _cuda is None:
        _cuda = bool(torch.cuda.is_available())
    if _cuda:
        torch.manual_seed(seed)  # the CPU's generator and every device's
        torch.cuda.manual_seed_all(seed)
    else:
        # Without a GPU, torch.manual_seed still queues a seeding of the CUDA generators for later, with a
        # stack trace each time (~4 ms on a 2-core machine): a batch seeded before each call paid that per call.
        torch.default_generator.manual_seed(seed)


def gpu_needs(source):
    """What in the candidate's source needs a CUDA GPU, as a short list (empty: pure PyTorch).

    Read with ast so names in comments or strings do not count."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    needs = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] == "triton":
                    needs.add("triton")
        elif isinstance(node, ast.ImportFrom):
            mod = node.module or ""
            if mod.split(".")[0] == "triton":
                needs.add("triton")
            if mod.startswith("torch.utils.cpp_extension") and any(
                    a.name in ("load_inline", "load", "CUDAExtension") for a in node.names):
                needs.add("load_inline")
        elif isinstance(node, ast.Attribute):
            if node.attr in ("load_inline",):
                needs.add("load_inline")
        elif isinstance(node, ast.Call):
            if isinstance(node.func, ast.Attribute) and node.func.attr == "cuda":
                needs.add(".cuda()")
            if any(k.arg == "cuda_sources" for k in node.keywords):
                needs.add("cuda_sources")
        elif isinstance(node, ast.Constant) and node.value == "cuda":
            needs.add("device 'cuda'")
    return sorted(needs)


# What cannot run on a CPU at all: the evaluator answers no_gpu without importing the candidate
# (importing would build CUDA sources with nvcc for a minute, or fail on `import triton`).
GPU_ONLY = ("triton", "cuda_sources")
