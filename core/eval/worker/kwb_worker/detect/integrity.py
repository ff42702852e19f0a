# SPDX-License-Identifier: MIT
"""Static integrity detectors (ids integrity.*): ways a candidate can look fast without being a
faster kernel. A "yes" with severity error or critical keeps the candidate from becoming best
unless a person overrides it. The run-time checks (aliasing, fresh outputs, fp64 error) live in
the evaluator; these read the code only."""
import ast
import builtins

from .kernels import tl_calls
from .source import RECURRENT_MODULES, dotted
from .tampering import reader
from .verdicts import evidence, no, verdict

RECURRENT_FUNCTIONS = ("torch.gru", "torch.lstm", "torch.rnn_tanh", "torch.rnn_relu", "torch._cudnn_rnn",
                       "torch.gru_cell", "torch.lstm_cell", "torch._VF.")
COMPUTE_FUNCTIONS = {"torch.matmul", "torch.mm", "torch.bmm", "torch.addmm", "torch.baddbmm", "torch.einsum",
                     "torch.tanh", "torch.sigmoid", "torch.relu", "torch.softmax", "torch.conv1d", "torch.conv2d",
                     "torch.addmv", "torch.mv", "torch.tensordot"}
# Operators reached below torch's public names (blind red team 18's `torch.ops.aten.mm.out`): the same kernels
COMPUTE_PREFIXES = ("torch.ops.aten.", "torch._ops.ops.aten.", "torch._C._nn.", "torch._C._VariableFunctions.",
                    "torch._softmax", "torch._log_softmax")
COMPUTE_METHODS = {"matmul", "mm", "bmm", "addmm", "tanh", "sigmoid", "relu", "softmax", "__matmul__"}
GLUE_FUNCTIONALS = {"pad"}
LAYER_MODULES = {"torch.nn.Linear", "torch.nn.Conv1d", "torch.nn.Conv2d", "torch.nn.Conv3d", "torch.nn.Bilinear"}


def _funcs(src, ctx):
    return [f for f, _ in ctx.contexts]


def _self_modules(src, cls, kinds):
    """self.<attr> names that __init__ binds to one of the nn module types in `kinds`."""
    out = {}
    init = src.method(cls, "__init__")
    if init is None:
        return out
    for node in ast.walk(init):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            q = src.qual(node.value.func) or ""
            if q in kinds:
                for t in node.targets:
                    d = dotted(t)
                    if d:
                        out[d] = q
    return out


def reference_calls(src, task, ctx, nodes=None):
    """[(call, description, is_recurrent)] of calls that compute with PyTorch or the reference."""
    cls = ctx.resolver.cls
    rec = _self_modules(src, cls, RECURRENT_MODULES)
    layers = _self_modules(src, cls, LAYER_MODULES)
    task_classes = set(task.src.classes) - {"Model"} if task.src.tree is not None else set()
    out = []
    for root in (nodes if nodes is not None else _funcs(src, ctx)):
        for n in ast.walk(root):
            if not isinstance(n, ast.Call):
                continue
            q = src.qual(n.func) or ""
            if not q and isinstance(n.func, ast.Name):
                q = reader(src).refs.qual(n.func) or ""  # `_mm = torch.ops.aten.mm.out` at import, `_mm(...)` later
            d = dotted(n.func) or ""
            if d in rec:
                out.append((n, "%s (%s) called" % (d, rec[d].split(".")[-1]), True))
            elif isinstance(n.func, ast.Call) and (src.qual(n.func.func) or "") in RECURRENT_MODULES:
                out.append((n, "%s constructed and called" % ast.unparse(n.func.func), True))
            elif any(q == r or (r.endswith(".") and q.startswith(r)) for r in RECURRENT_FUNCTIONS):
                out.append((n, "%s called" % q, True))
            elif q.startswith("torch.nn.functional.") and q.split(".")[-1] not in GLUE_FUNCTIONALS:
                out.append((n, "%s called" % q, False))
            elif q in COMPUTE_FUNCTIONS or q.startswith(COMPUTE_PREFIXES):
                out.append((n, "%s called" % q, False))
            elif d in layers:
                out.append((n, "%s (%s) called" % (d, layers[d].split(".")[-1]), False))
            elif isinstance(n.func, ast.Name) and n.func.id in task_classes and n.func.id not in src.classes:
                out.append((n, "the task's layer %s used" % n.func.id, True))
            elif q == "torch.compile":
                out.append((n, "torch.compile generates the kernels from PyTorch ops", True))
            elif isinstance(n.func, ast.Attribute) and n.func.attr in COMPUTE_METHODS and q == "" \
                    and not (isinstance(n.func.value, ast.Name) and n.func.value.id in src.jit):
                out.append((n, "tensor method .%s() called" % n.func.attr, False))
        for n in ast.walk(root):
            if isinstance(n, ast.BinOp) and isinstance(n.op, ast.MatMult):
                out.append((n, "`@` matrix product", False))
    return out


def _total_launches(src, ctx):
    """Launch sites written in forward and everything it reaches (calls or handed-over methods). A call into an
    inline extension counts only where its sources can compute: a kernel, a launch or a loop (blind red team 21
    called an empty C++ function beside torch.matmul, which then passed for glue)."""
    computes = _extension_computes(src)
    return sum(1 for f in _funcs(src, ctx) for n in ast.walk(f)
               if isinstance(n, ast.Call) and (src.launch_of(n) or (computes and src.extension_call(n))))


def _extension_computes(src):
    texts = [t for t, _ in src.cuda_sources()]
    if not texts:
        return True  # sources not inline (load() of files): not read here, taken at their word
    return any(m in t for t in texts for m in ("<<<", "__global__", "for (", "for(", "while (", "while(",
                                                 "parallel_for", "#pragma omp", "cublas", "cudnn"))


def reference_call(src, task, ctx):
    det = "integrity.reference_call"
    calls = reference_calls(src, task, ctx)
    launches = _total_launches(src, ctx)
    rec = [(n, t) for n, t, r in calls if r]
    other = [(n, t) for n, t, r in calls if not r]
    fix = ("Compute the recurrence in your own Triton/CUDA kernel; do not call nn.GRU/nn.LSTM, torch._VF, "
           "cuDNN or the task's layers. PyTorch may allocate outputs, reshape and do small glue only.")
    if rec:
        return verdict(det, "yes", "critical", "the reference implementation does the work: " + rec[0][1],
                       [evidence(n.lineno, n.end_lineno, t) for n, t in rec], fix)
    if other and launches == 0:
        return verdict(det, "yes", "error", "no kernel is launched; PyTorch does the work (%s)" % other[0][1],
                       [evidence(n.lineno, n.end_lineno, t) for n, t in other], fix)
    if other:
        return no(det, "%d kernel launch%s; PyTorch ops used alongside for glue or projections"
                  % (launches, "es" if launches != 1 else ""),
                  [evidence(n.lineno, n.end_lineno, t + " (alongside the kernels)") for n, t in other])
    return no(det, "no reference or PyTorch compute call in ModelNew")


def _branch_falls_back(src, task, ctx, stmts):
    mod = ast.Module(body=stmts, type_ignores=[])
    if reference_calls(src, task, ctx, [mod]):
        return True
    for n in ast.walk(mod):
        if isinstance(n, ast.Call):
            d = dotted(n.func) or ""
            if d in ("super.forward",) or (isinstance(n.func, ast.Attribute) and n.func.attr == "forward"
                                            and isinstance(n.func.value, ast.Call)):
                return True
            if isinstance(n.func, ast.Name) and n.func.id == "Model":
                return True
    return False


def fallback(src, task, ctx):
    det = "integrity.fallback"
    cls = ctx.resolver.cls
    ev, guarded = [], []
    for f in _funcs(src, ctx):
        for n in ast.walk(f):
            if isinstance(n, ast.Try):
                body = ast.Module(body=n.body, type_ignores=[])
                if src.launches_in(body, cls) and any(_branch_falls_back(src, task, ctx, h.body) for h in n.handlers):
                    ev.append(evidence(n.lineno, n.end_lineno,
                                       "try/except in %s: the kernel path is tried and PyTorch runs when it fails" % f.name))
            elif isinstance(n, ast.If) and n.orelse:
                a = ast.Module(body=n.body, type_ignores=[])
                b = ast.Module(body=n.orelse, type_ignores=[])
                la, lb = src.launches_in(a, cls), src.launches_in(b, cls)
                if (la and not lb and _branch_falls_back(src, task, ctx, n.orelse)) or \
                        (lb and not la and _branch_falls_back(src, task, ctx, n.body)):
                    guarded.append(evidence(n.lineno, n.end_lineno, "if/else in %s on `%s`: one branch launches the "
                                            "kernel, the other computes with PyTorch" % (f.name, ast.unparse(n.test))))
    fix = ("Remove the PyTorch fallback: let a failing kernel fail, so the evaluator reports the error and the "
           "repair loop can fix it.")
    if ev:
        return verdict(det, "yes", "error", "a try/except falls back to PyTorch when the kernel fails", ev + guarded, fix)
    if guarded:
        return verdict(det, "yes", "warning", "a conditional PyTorch path next to the kernel path", guarded, fix)
    return no(det, "no fallback to PyTorch around the kernel path")


def subclass_reference(src, task, ctx):
    det = "integrity.subclass_reference"
    cls = ctx.resolver.cls
    ev = []
    if cls is not None:
        for b in cls.bases:
            d = dotted(b) or ""
            if d == "Model" or d.endswith(".Model"):
                ev.append(evidence(cls.lineno, cls.lineno, "class ModelNew(%s) inherits the reference" % d))
    for n in src.walk():
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "Model":
            ev.append(evidence(n.lineno, n.end_lineno, "the reference Model is instantiated"))
    if ev:
        return verdict(det, "yes", "critical", "ModelNew reuses the reference Model", ev,
                       "Define ModelNew(nn.Module) on its own; create the same parameters in the same order as the "
                       "reference, and compute forward with your kernels.")
    return no(det, "ModelNew does not use the reference Model")


def _uses(src, prefixes, skip=lambda q: False):
    """[(node, name)] of the names under `prefixes` the file uses (not those `skip` says), the longest a line."""
    out = []
    inner = set()  # `threading` in `threading.Lock`: the chain is read whole, by its longest name
    for n in src.walk():
        if isinstance(n, ast.Attribute) and src.qual(n):
            inner.add(n.value)
    for n in src.walk():
        if isinstance(n, (ast.Attribute, ast.Name)) and n not in inner:
            q = src.qual(n) or ""
            if any(q == p or q.startswith(p + ".") for p in prefixes) and not skip(q):
                out.append((n, q))
    # report each line once, the longest name on it
    best = {}
    for n, q in out:
        if n.lineno not in best or len(q) > len(best[n.lineno][1]):
            best[n.lineno] = (n, q)
    return [best[k] for k in sorted(best)]


def graph_capture(src, task, ctx):
    det = "integrity.graph_capture"
    uses = _uses(src, ("torch.cuda.graph", "torch.cuda.CUDAGraph", "torch.cuda.make_graphed_callables",
                       "torch.cuda.graphs"))
    if not uses:
        return no(det, "no CUDA graph capture")
    ev = [evidence(n.lineno, n.end_lineno, "%s used" % q) for n, q in uses]
    calls = reference_calls(src, task, ctx)
    fix = ("Do not wrap PyTorch or cuDNN in a CUDA graph and report it as a kernel: the evaluator compares "
           "against a CUDA-graph baseline of the reference anyway. Write the computation as a kernel.")
    if calls:
        ev += [evidence(n.lineno, n.end_lineno, t + " inside the captured work") for n, t, _ in calls[:3]]
        return verdict(det, "yes", "critical", "a CUDA graph replays PyTorch/cuDNN work", ev, fix)
    return verdict(det, "yes", "warning", "a CUDA graph replays the candidate's own kernels (launch overhead hidden)",
                   ev, "Prefer one persistent kernel over replaying many small launches from a CUDA graph.")


def side_stream(src, task, ctx):
    det = "integrity.side_stream"
    uses = _uses(src, ("torch.cuda.Stream", "torch.cuda.stream", "torch.cuda.ExternalStream", "torch.Stream"))
    if uses:
        return verdict(det, "yes", "error", "work is issued on a side CUDA stream the timer does not see",
                       [evidence(n.lineno, n.end_lineno, "%s used" % q) for n, q in uses],
                       "Launch every kernel on the current stream; do not create or switch CUDA streams.")
    return no(det, "no side stream")


BENIGN_THREADING = ("Lock", "RLock", "local", "get_ident", "get_native_id", "current_thread", "main_thread", "Event",
                    "Condition", "Semaphore", "BoundedSemaphore", "allocate_lock", "_allocate_lock", "TIMEOUT_MAX")


def _benign_threading(q):
    """A lock, an event or the thread's own id: they start nothing (a lock around a lazy extension build is honest)."""
    return q.rsplit(".", 1)[-1] in BENIGN_THREADING and q.rsplit(".", 2)[-2:-1] in (["threading"], ["_thread"])


def _one_thread(src, node):
    """True for an argument that asks for one thread: 1, a module-level name bound once to 1, or torch's own count
    read back (`torch.get_num_threads()`, a restore)."""
    if isinstance(node, ast.Constant):
        return node.value == 1 and not isinstance(node.value, bool)
    if isinstance(node, ast.Call):
        return src.qual(node.func) in ("torch.get_num_threads", "torch.get_num_interop_threads")
    if isinstance(node, ast.Name) and not src.writes_namespaces():
        value = src.module_value(node.id)
        return value is not None and _one_thread(src, value)
    return False


def threads(src, task, ctx):
    det = "integrity.threads"
    mods = ("threading", "concurrent.futures", "multiprocessing", "_thread", "asyncio")
    uses = _uses(src, mods + ("os.sched_setaffinity", "os.fork", "torch.jit.fork", "torch.jit._fork", "torch.futures"),
                 skip=_benign_threading)
    # torch's own pools (blind red team 19 ran a helper on torch's inter-op thread through torch.jit.fork); one thread
    # asked for (1, a name bound once to 1, or torch's own count put back) is no other thread
    refs = reader(src).refs
    for n in src.walk():
        q = refs.qual(n.func) if isinstance(n, ast.Call) else None  # through an alias: `_snt = torch.set_num_threads`
        if q in ("torch.set_num_threads", "torch.set_num_interop_threads") and \
                not (len(n.args) == 1 and _one_thread(src, n.args[0])):
            uses.append((n, q))
    # a module re-exported by another (`queue.threading._start_new_thread`, blind red team 18): the same module
    seen = {n.lineno for n, _ in uses}
    for n in src.walk():
        if isinstance(n, (ast.Attribute, ast.Name)) and n.lineno not in seen:
            q = src.qual(n) or ""
            if any(("." + m + ".") in ("." + q.split(".", 1)[-1] + ".") for m in mods) and "." in q:
                uses.append((n, q))
                seen.add(n.lineno)
    uses = [(n, q) for n, q in uses if not _benign_threading(q)]
    uses.sort(key=lambda x: x[0].lineno)
    imported = [n for n in src.walk() if isinstance(n, (ast.Import, ast.ImportFrom)) and
                any((a.name if isinstance(n, ast.Import) else (n.module or "")).split(".")[0] in
                    ("threading", "concurrent", "multiprocessing", "_thread", "asyncio") for a in n.names)]
    fix = "Run the computation synchronously in forward(); no threads, processes or event loops."
    if uses:
        return verdict(det, "yes", "error", "work runs on other threads or processes",
                       [evidence(n.lineno, n.end_lineno, "%s used" % q) for n, q in uses], fix)
    if imported:
        return verdict(det, "yes", "warning", "a threading module is imported",
                       [evidence(n.lineno, n.end_lineno, "import of a threading module") for n in imported], fix)
    return no(det, "no threads")


CONFIG_BUILTINS = ("min", "max", "abs", "int", "float", "bool", "len", "round", "divmod", "pow", "range", "tuple",
                   "sorted", "str")
CONFIG_CALLS = ("triton.next_power_of_2", "triton.cdiv", "math.", "torch.cuda.get_device_", "torch.finfo",
                "torch.iinfo")


def _config_only(src, f):
    """A cached module-level function that computes no tensor: no torch call but the device's properties, no
    launch, no call of the file's own functions, no global state (a block size and warp count from a column count)."""
    if f.args.args and f.args.args[0].arg in ("self", "cls"):
        return False
    for n in (x for st in f.body for x in ast.walk(st)):  # the body, not the decorators
        if isinstance(n, (ast.Global, ast.Nonlocal)):
            return False
        if isinstance(n, ast.Call):
            q = src.qual(n.func) or ""
            if isinstance(n.func, ast.Name) and not q:
                if n.func.id not in CONFIG_BUILTINS or n.func.id in src.functions:
                    return False  # the file's own functions, or anything but plain arithmetic
            elif not q.startswith(CONFIG_CALLS):
                return False  # a method (`x.clamp_min(0)`: blind red team 21) or another library's call
    return True


def _stores(src):
    """{name: [(value, function)]} of every assignment to `self.x`, `self.x[k]` or a module-level name in the file
    (function None at import)."""
    out = {}
    funcs = [f for f in ast.walk(src.tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))]
    owner = {}
    for f in funcs:  # outer functions come first in a walk: an inner one takes its own nodes over
        for n in ast.walk(f):
            owner[n] = f
    for n in ast.walk(src.tree):
        if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and getattr(n, "value", None) is not None:
            for t in (n.targets if isinstance(n, ast.Assign) else [n.target]):
                base = t.value if isinstance(t, ast.Subscript) else t
                d = dotted(base)
                if d:
                    out.setdefault(d, []).append((n.value, owner.get(n)))
    return out


def _built_from_no_input(src, d, stores, depth=0):
    """True when every value stored in `d` is built from parameters, constants, imports and construction-time
    values only, never from a call's inputs (a compiled extension kept, a transposed weight kept): a cache of
    those is no output cache. Locals are followed to their own assignments; a parameter of any function but
    __init__ counts as an input."""
    if depth > 6 or d not in stores or ((depth == 0 or d.startswith("self.")) and _written_in_place(src, d)):
        return False  # the kept value itself, or a tensor of the model's it is made of, filled after it was stored
    return all(_free_of_inputs(src, value, func, stores, depth + 1) for value, func in stores[d])


def _written_in_place(src, d):
    """True when `d` may be filled after it is stored: handed to a call (`out=self.buf`, a kernel's argument), written
    through an index or an augmented assignment, or by one of its own in-place methods (`self.buf.copy_(y)`): blind
    red team 21 kept a `torch.empty` buffer filled with `out=` and returned it."""
    for n in ast.walk(src.tree):
        if isinstance(n, ast.Call):
            if any(dotted(a) == d for a in n.args) or any(dotted(k.value) == d for k in n.keywords):
                return True
            if isinstance(n.func, ast.Attribute) and n.func.attr.endswith("_") and dotted(n.func.value) == d:
                return True
        elif isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Store) and dotted(n.value) == d:
            return True
        elif isinstance(n, ast.AugAssign) and dotted(n.target) == d:
            return True
    return False


def _free_of_inputs(src, expr, func, stores, depth):
    if depth > 6:
        return False
    init = func is not None and func.name == "__init__"
    params = set()
    if func is not None:
        a = func.args
        params = {x.arg for x in a.posonlyargs + a.args + a.kwonlyargs} | \
            {x.arg for x in (a.vararg, a.kwarg) if x is not None}
    for n in ast.walk(expr):
        if not init and isinstance(n, ast.Call) and (dotted(n.func) or "").startswith("self."):
            return False  # a method of the model's own: whatever it reads, not followed here
        if isinstance(n, ast.Attribute) and (dotted(n) or "").startswith("self.") and dotted(n) in stores and \
                not isinstance(n.ctx, ast.Store):
            if not _built_from_no_input(src, dotted(n), stores, depth):
                return False
        if not isinstance(n, ast.Name) or not isinstance(n.ctx, ast.Load) or n.id == "self":
            continue
        if init or n.id in src.aliases or n.id in src.functions or n.id in src.classes:
            continue
        if n.id in params:
            return False  # a call's input
        local = [] if func is None else [x.value for x in ast.walk(func) if isinstance(x, ast.Assign) and
                                         any(isinstance(t, ast.Name) and t.id == n.id for t in x.targets)]
        if local:
            if not all(_free_of_inputs(src, v, func, stores, depth + 1) for v in local):
                return False
        elif n.id in stores:
            if not _built_from_no_input(src, n.id, stores, depth):
                return False
        elif n.id not in dir(builtins):
            return False
    return True


def caching(src, task, ctx):
    det = "integrity.caching"
    cls = ctx.resolver.cls
    funcs = _funcs(src, ctx)
    ev = []
    for f in funcs:
        for dec in f.decorator_list:
            q = src.qual(dec.func if isinstance(dec, ast.Call) else dec) or ""
            if q in ("functools.lru_cache", "functools.cache") and not _config_only(src, f):
                ev.append(evidence(dec.lineno, dec.end_lineno, "%s on %s caches results across calls" % (q, f.name)))
    written, stores = set(), _stores(src)
    for f in funcs:
        for n in ast.walk(f):
            if isinstance(n, (ast.Assign, ast.AugAssign)):
                for t in (n.targets if isinstance(n, ast.Assign) else [n.target]):
                    base = t.value if isinstance(t, ast.Subscript) else t
                    d = dotted(base)
                    if d and (d.startswith("self.") or d in src.constants):
                        written.add(d)
    for f in funcs:
        for n in ast.walk(f):
            if not isinstance(n, ast.If):
                continue
            for st in n.body:
                if isinstance(st, ast.Return) and st.value is not None:
                    v = st.value
                    base = v.value if isinstance(v, ast.Subscript) else v
                    d = dotted(base)
                    if d in written and not src.launches_in(ast.Module(body=n.body, type_ignores=[]), cls) and \
                            not _built_from_no_input(src, d, stores):
                        ev.append(evidence(n.lineno, st.end_lineno, "%s returns the stored `%s` without computing "
                                           "when `%s`" % (f.name, ast.unparse(v), ast.unparse(n.test))))
    if ev:
        return verdict(det, "yes", "critical", "outputs are cached across calls", ev,
                       "Compute the output from the inputs on every call; fresh inputs must give fresh outputs. "
                       "Caching weights or buffers is fine, caching results is not.")
    return no(det, "no output cache")


def _dtype_low(src, node):
    q = src.qual(node) or ""
    return q.split(".")[-1] in ("float16", "half", "bfloat16") and q.split(".")[0] in ("torch", "triton")


def precision(src, task, ctx):
    det = "integrity.precision"
    if not task.fp32:
        return no(det, "the task is not fp32")
    hard, soft = [], []
    for n in src.walk():
        if isinstance(n, ast.Call):
            q = src.qual(n.func) or ""
            if isinstance(n.func, ast.Attribute) and n.func.attr in ("half", "bfloat16") and not n.args:
                hard.append(evidence(n.lineno, n.end_lineno, ".%s() downcasts fp32 data" % n.func.attr))
            if isinstance(n.func, ast.Attribute) and n.func.attr == "to" and any(_dtype_low(src, a) for a in n.args):
                hard.append(evidence(n.lineno, n.end_lineno, "%s converts to a 16-bit type" % ast.unparse(n)))
            for kw in n.keywords:
                if kw.arg == "dtype" and _dtype_low(src, kw.value):
                    hard.append(evidence(n.lineno, n.end_lineno, "dtype=%s" % ast.unparse(kw.value)))
                if kw.arg == "allow_tf32" and isinstance(kw.value, ast.Constant) and kw.value.value is True:
                    hard.append(evidence(n.lineno, n.end_lineno, "allow_tf32=True: TF32 products (10-bit mantissa)"))
                if kw.arg == "input_precision" and isinstance(kw.value, ast.Constant) and kw.value.value == "tf32":
                    hard.append(evidence(n.lineno, n.end_lineno, "input_precision=\"tf32\""))
            if q in ("torch.autocast", "torch.cuda.amp.autocast", "torch.amp.autocast"):
                hard.append(evidence(n.lineno, n.end_lineno, "%s runs fp32 work in lower precision" % q))
            if q == "torch.set_float32_matmul_precision" and n.args and isinstance(n.args[0], ast.Constant) \
                    and n.args[0].value in ("high", "medium"):
                hard.append(evidence(n.lineno, n.end_lineno, "float32 matmul precision '%s' enables TF32/bf16" % n.args[0].value))
        elif isinstance(n, ast.Assign):
            for t in n.targets:
                q = src.qual(t) or ""
                if q.endswith("allow_tf32") and isinstance(n.value, ast.Constant) and n.value.value is True:
                    hard.append(evidence(n.lineno, n.end_lineno, "%s = True" % q))
    for f in src.jit.values():
        for c in tl_calls(src, f, ("dot",)):
            keys = {kw.arg for kw in c.keywords}
            if "input_precision" not in keys and "allow_tf32" not in keys:
                soft.append(evidence(c.lineno, c.end_lineno, "tl.dot in %s without input_precision=\"ieee\": "
                                     "Triton's default for fp32 is TF32" % f.name))
    fix = ("The task is fp32: keep fp32 data and math. Pass input_precision=\"ieee\" to tl.dot, leave allow_tf32 "
           "off, and do not cast to fp16/bf16.")
    if hard:
        return verdict(det, "yes", "error", "fp32 task computed in lower precision", hard + soft, fix)
    if soft:
        return verdict(det, "yes", "warning", "tl.dot uses TF32 by default on fp32 inputs", soft, fix)
    return no(det, "no precision downgrade found")
