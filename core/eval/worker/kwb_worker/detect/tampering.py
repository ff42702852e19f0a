# SPDX-License-Identifier: MIT
"""Static integrity detectors for candidates that attack the harness rather than the problem:
writing on descriptors the candidate does not own (forged protocol lines), reading the
evaluator's memory (gc, frames, inspect, ctypes, /proc/<pid>/mem), ending or signalling the
process, monkey-patching the libraries the harness uses (torch, builtins, math, random,
numpy, ...), and code built at run time that no detector can read (exec, computed imports).

Everything is read from the syntax tree. A module is recognised by what it is, never by what it
is called: `import torch as T; T.rand = f`, `t = torch; t.rand = f`, `setattr(torch, "rand", f)`,
`vars(torch)["rand"] = f`, `sys.modules["torch"].rand = f` and `getattr(torch, "cuda")` are all
the same module to `Refs`, while a local variable that happens to be called `torch_rand` or a
method of the candidate's own class called `exit` is not. Code under
`if __name__ == "__main__":` never runs when the evaluator imports the candidate and is skipped.
"""
import ast

from .verdicts import evidence, graded, no, verdict as _verdict


def verdict(detector, outcome, severity, summary, evidence_list=(), fix=""):
    """A verdict with its evidence in source order."""
    ordered = sorted(evidence_list, key=lambda e: (e["first_line"], e["last_line"]))
    return _verdict(detector, outcome, severity, summary, ordered, fix)


# Attributes whose replacement changes what the evaluator's timers measure (integrity.timer_patch);
# every other patched attribute of a library is integrity.library_patch.
TIMER_TARGETS = ("time", "timeit", "torch.cuda.Event", "torch.Event", "torch.cuda.synchronize",
                 "torch.cuda.Stream", "torch.cuda.current_stream", "torch.cuda.default_stream",
                 "torch.cuda.streams", "torch.cuda.events", "torch.cuda.Event.elapsed_time",
                 "torch.cuda.Event.record", "torch.cuda.Event.synchronize", "triton.testing",
                 "torch.utils.benchmark", "torch.profiler", "torch.autograd.profiler")
# Settings, not functions: assigning them is configuration (precision reads the TF32 ones).
CONFIG_PREFIXES = ("torch.backends.", "torch._dynamo.config.", "torch._inductor.config.",
                   "torch.version.", "triton.knobs.")
PROTOCOL_KEYS = ("result", "status", "speedup", "id", "v", "verdicts", "runtime_checks", "correct",
                 "runtime_ms", "message", "op")
STRONG_KEYS = set(PROTOCOL_KEYS) - {"id", "op", "message", "v"}
BENIGN_GC = ("collect", "enable", "disable", "isenabled", "get_threshold", "set_threshold", "get_count",
             "freeze", "unfreeze")
FRAME_ATTRS = ("f_back", "f_locals", "f_globals", "f_builtins", "tb_frame", "tb_next", "gi_frame", "cr_frame",
               "ag_frame", "__globals__", "__subclasses__", "__closure__", "cell_contents", "__traceback__")
# An object's class, a function's code or defaults: a kernel never rewrites them (blind red team 18 moved the runner's
# clock object onto a subclass of its own through `self.__class__ = ...`).
REWRITE_ATTRS = ("__class__", "__code__", "__defaults__", "__kwdefaults__", "__bases__")
# Defining one of these makes a tensor over any address (torch.as_tensor, numpy): memory the candidate was not given
# (since session 22 each input's storage is its own bytes; an address reaches beyond them). Reading a tensor's own
# interface (cupy/numba interop) is fine; defining one is not.
RAW_INTERFACES = ("__cuda_array_interface__", "__array_interface__")
INSPECT_FRAMES = ("currentframe", "stack", "trace", "getouterframes", "getinnerframes", "getframeinfo",
                  "getgeneratorlocals", "getcoroutinelocals", "getclosurevars")
TRACEBACK_FRAMES = ("walk_stack", "walk_tb", "extract_stack", "StackSummary")
SYS_FRAMES = ("_getframe", "_current_frames", "settrace", "setprofile", "_getframemodulename", "monitoring")
CTYPES_MEMORY = ("cast", "string_at", "wstring_at", "memmove", "memset", "py_object", "pythonapi", "PyDLL",
                 "pydll", "from_address", "addressof")
EXIT_CALLS = ("os._exit", "os.abort", "os.kill", "os.killpg", "os.fork", "os.forkpty", "os.execv", "os.execve",
              "os.execl", "os.execlp", "os.execvp", "os.execvpe", "os.execle", "os.execlpe", "os.posix_spawn",
              "os.posix_spawnp", "sys.exit", "atexit.register", "_thread.interrupt_main", "os.system",
              "faulthandler.dump_traceback_later")
FD_CALLS = ("os.write", "os.writev", "os.pwrite", "os.pwritev", "os.sendfile", "os.fdopen", "os.dup", "os.dup2",
            "os.pipe", "os.pipe2", "os.openpty", "os.mkfifo", "os.set_inheritable", "os.splice", "os.tee",
            "os.login_tty", "pty.fork", "pty.openpty", "pty.spawn", "os.popen", "subprocess")
SINK_METHODS = ("write", "writelines", "send", "sendall", "sendto", "sendmsg")


class Refs:
    """What expressions of a file refer to, as fully qualified names of imported things:
    imports (through SourceFile's aliases), names bound only to such references (`T = torch`),
    attributes of them, `getattr(ref, "name")`, `sys.modules["name"]`, `importlib.import_module
    ("name")`, `__import__("name")` and `__builtins__`."""

    def __init__(self, src):
        self.src = src
        self.alias = {}
        values = {}
        for node in ast.walk(src.tree):
            if isinstance(node, ast.Assign):
                for t in node.targets:
                    for n in ast.walk(t):
                        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                            values.setdefault(n.id, []).append(node.value if t is n else None)
            elif isinstance(node, ast.For) and isinstance(node.target, ast.Name) and \
                    isinstance(node.iter, (ast.Tuple, ast.List)):
                values.setdefault(node.target.id, []).extend(node.iter.elts)  # for m in (torch, math)
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For, ast.comprehension)):
                for n in ast.walk(node.target):
                    if isinstance(n, ast.Name):
                        values.setdefault(n.id, []).append(None)
            elif isinstance(node, ast.withitem) and node.optional_vars is not None:
                for n in ast.walk(node.optional_vars):
                    if isinstance(n, ast.Name):
                        values.setdefault(n.id, []).append(None)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                values.setdefault(node.name, []).append(None)
                if not isinstance(node, ast.ClassDef):
                    for name, args in _parameter_bindings(src.tree, node).items():
                        values.setdefault(name, []).extend(args)
            elif isinstance(node, ast.Lambda):
                for a in node.args.args + node.args.kwonlyargs:
                    values.setdefault(a.arg, []).append(None)
        self.bound = set(values)  # every name the file binds itself (not a builtin then)
        for _ in range(4):  # aliases of aliases
            for name, vals in values.items():
                if name in src.aliases or name in self.alias or any(v is None for v in vals):
                    continue
                qs = [self.qual(v) for v in vals]
                if None not in qs:
                    self.alias[name] = qs[0]  # `for m in (torch, math)`: reported as the first

    def builtin(self, node, name):
        """True when `node` is the builtin `name` (not a name the file binds itself)."""
        return isinstance(node, ast.Name) and node.id == name and name not in self.bound and \
            name not in self.src.aliases

    def qual(self, node):
        if isinstance(node, ast.Name):
            if node.id in self.alias:
                return self.alias[node.id]
            if node.id == "__builtins__":
                return "builtins"
            return self.src.qual(node)
        if isinstance(node, ast.Attribute):
            base = self.qual(node.value)
            return base + "." + node.attr if base else None
        if isinstance(node, ast.Call):
            f = node.func
            a = node.args
            if self.builtin(f, "getattr") and len(a) >= 2:
                base = self.qual(a[0])
                if base and isinstance(a[1], ast.Constant) and isinstance(a[1].value, str):
                    return base + "." + a[1].value
                return None
            if (self.builtin(f, "__import__") or self.qual(f) == "importlib.import_module") and a and \
                    isinstance(a[0], ast.Constant) and isinstance(a[0].value, str):
                return a[0].value
            return None
        if isinstance(node, ast.Subscript):  # sys.modules["torch"], os.__dict__["_exit"], vars(os)["_exit"]
            key = _const_str(node.slice)
            ns = self.namespace(node.value)
            if key and ns:
                return key if ns == "sys.modules" else ns + "." + key
        return None

    def namespace(self, node):
        """The module or class whose namespace dict `node` is: `m.__dict__`, `vars(m)`,
        `sys.modules` (the table of modules), `__builtins__`."""
        if isinstance(node, ast.Attribute) and node.attr == "__dict__":
            return self.qual(node.value)
        if isinstance(node, ast.Call) and self.builtin(node.func, "vars") and node.args:
            return self.qual(node.args[0])
        q = self.qual(node)
        if q in ("sys.modules", "builtins"):
            return q
        return None


def _parameter_bindings(tree, func):
    """{parameter: [argument expressions]} of a function from its call sites in the file (by
    name, or self.name for a method); a parameter with a default, *args/**kwargs, or no call
    site at all is bound to None (unknown)."""
    params = [a.arg for a in func.args.args]
    out = {p: [] for p in params}
    for a in func.args.kwonlyargs + [func.args.vararg, func.args.kwarg]:
        if a is not None:
            out[a.arg] = [None]
    calls = []
    for n in ast.walk(tree):
        if isinstance(n, ast.Call):
            f = n.func
            if isinstance(f, ast.Name) and f.id == func.name:
                calls.append((n, params))
            elif isinstance(f, ast.Attribute) and f.attr == func.name and isinstance(f.value, ast.Name) and \
                    f.value.id == "self":
                calls.append((n, params[1:]))
    for call, names in calls:
        for p, a in zip(names, call.args):
            out[p].append(None if isinstance(a, ast.Starred) else a)
        for kw in call.keywords:
            if kw.arg in out:
                out[kw.arg].append(kw.value)
    n_defaults = len(func.args.defaults)
    for i, p in enumerate(params):
        if not out[p] or i >= len(params) - n_defaults or (p == "self" and i == 0):
            out[p].append(None)
    return out


# ---------------------------------------------------------------------------------------------
# shared reading of the tree


class Reader:
    """Per-file facts the detectors here share: parents, the `__main__` guard, docstrings."""

    def __init__(self, src):
        self.src = src
        self.refs = Refs(src)
        self.parent = {}
        for node in ast.walk(src.tree):
            for child in ast.iter_child_nodes(node):
                self.parent[child] = node
        self.skipped = set(src.dead)  # the `__main__` block, unless the file rebinds __name__
        for node in ast.walk(src.tree):
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
                self.skipped.add(node.value)  # docstrings and bare strings are prose

    def nodes(self):
        return [n for n in ast.walk(self.src.tree) if n not in self.skipped]

    def where(self, node):
        """'at import' or 'in Class.method' / 'in function' for a node."""
        names = []
        n = self.parent.get(node)
        while n is not None:
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                names.append(getattr(n, "name", "lambda"))
            n = self.parent.get(n)
        funcs = [x for x in reversed(names)]
        if not funcs:
            return "at import"
        return "in " + ".".join(funcs)

    def ev(self, node, text):
        return evidence(node.lineno, getattr(node, "end_lineno", node.lineno), "%s (%s)" % (text, self.where(node)))

    def call_name(self, call):
        """The qualified name of a call's function, or the builtin's name for a builtin."""
        q = self.refs.qual(call.func)
        if q:
            return q
        if isinstance(call.func, ast.Name) and self.refs.builtin(call.func, call.func.id):
            return "builtins." + call.func.id
        return ""


_READERS = {}


def reader(src):
    r = _READERS.get(id(src))
    if r is None or r.src is not src:
        _READERS.clear()
        r = _READERS[id(src)] = Reader(src)
    return r


def _under(q, prefixes):
    return any(q == p or q.startswith(p + ".") for p in prefixes)


def _const_str(node):
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _fold(node, names, depth=0):
    """The string an expression builds from constants only (`"".join(("__clo", "sure__"))`, `"__c" + "ode__"`,
    f-strings, `%` and `.format` of constants, slices such as `"__edoc__"[::-1]`, names bound once to such a string),
    or None."""
    if depth > 30:
        return None
    d = depth + 1
    try:
        if isinstance(node, ast.Constant):
            return node.value if isinstance(node.value, str) else None
        if isinstance(node, ast.Name):
            return names.get(node.id)
        if isinstance(node, ast.BinOp):
            a = _fold(node.left, names, d)
            if a is None:
                return None
            if isinstance(node.op, ast.Add):
                b = _fold(node.right, names, d)
                return a + b if b is not None else None
            if isinstance(node.op, ast.Mod):
                items = node.right.elts if isinstance(node.right, ast.Tuple) else [node.right]
                vals = [_fold(x, names, d) for x in items]
                return a % tuple(vals) if None not in vals else None
            if isinstance(node.op, ast.Mult) and isinstance(node.right, ast.Constant) and \
                    isinstance(node.right.value, int) and 0 <= node.right.value <= 8:
                return a * node.right.value
            return None
        if isinstance(node, ast.JoinedStr):
            parts = []
            for v in node.values:
                x = _fold(v.value if isinstance(v, ast.FormattedValue) else v, names, d)
                if x is None or (isinstance(v, ast.FormattedValue) and v.format_spec is not None):
                    return None
                parts.append(x)
            return "".join(parts)
        if isinstance(node, ast.Subscript):
            a = _fold(node.value, names, d)
            sl = node.slice
            if a is None:
                return None
            if isinstance(sl, ast.Slice):
                bounds = [_int(x) for x in (sl.lower, sl.upper, sl.step)]
                return None if False in bounds else a[slice(*bounds)]
            return None
        if isinstance(node, ast.Call):
            f = node.func
            if isinstance(f, ast.Name) and f.id in ("reversed", "str") and len(node.args) == 1:
                a = _fold(node.args[0], names, d)
                return None if a is None else a[::-1] if f.id == "reversed" else a
            if isinstance(f, ast.Name) and f.id == "chr" and len(node.args) == 1 and \
                    isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, int):
                return chr(node.args[0].value)
            if not isinstance(f, ast.Attribute):
                return None
            base = _fold(f.value, names, d)
            if base is None:
                return None
            if f.attr == "join" and len(node.args) == 1:
                arg = node.args[0]
                items = arg.elts if isinstance(arg, (ast.Tuple, ast.List)) else None
                if items is None:
                    whole = _fold(arg, names, d)  # "".join(reversed("..."))
                    return None if whole is None else base.join(whole)
                vals = [_fold(x, names, d) for x in items]
                return base.join(vals) if None not in vals else None
            if f.attr in ("format", "replace", "lower", "upper", "strip", "lstrip", "rstrip", "removeprefix",
                          "removesuffix", "swapcase", "title", "capitalize") and not node.keywords:
                vals = [_fold(x, names, d) for x in node.args]
                return getattr(base, f.attr)(*vals) if None not in vals else None
    except (TypeError, ValueError, IndexError, KeyError, OverflowError):
        return None
    return None


def _int(node):
    """A slice bound: None when absent, the integer of `3` or `-1`, False for anything else."""
    if node is None:
        return None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        v = _int(node.operand)
        return -v if v not in (None, False) else False
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, int) else False


def _folded_names(src):
    """{name: string} for every name the file binds exactly once, to a string built from constants."""
    value = {n.targets[0].id: n.value for n in ast.walk(src.tree)
             if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)}
    names = {}
    for _ in range(4):  # names of names
        for k, v in value.items():
            if src.stores(k) == 1 and k not in names:
                x = _fold(v, names)
                if x is not None:
                    names[k] = x
    return names


def _path_text(node, r):
    """The text of a path expression with unknown parts as `*`: literals, f-strings, `%` and `+`
    formatting, os.path.join / pathlib joins of such parts."""
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str) else "*"
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "*" for v in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mod)):
        left = _path_text(node.left, r)
        if isinstance(node.op, ast.Mod):
            return left.replace("%d", "*").replace("%s", "*").replace("%i", "*")
        return left + _path_text(node.right, r)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):  # pathlib: Path("/proc") / "self" / "mem"
        return _path_text(node.left, r) + "/" + _path_text(node.right, r)
    if isinstance(node, ast.Call):
        q = r.call_name(node)
        if q in ("os.path.join", "posixpath.join", "pathlib.Path", "pathlib.PurePath", "pathlib.PosixPath"):
            return "/".join(_path_text(a, r) for a in node.args).replace("//", "/")
        if q in ("builtins.str",) and node.args:
            return "*"
        if isinstance(node.func, ast.Attribute) and node.func.attr == "format":
            return _path_text(node.func.value, r).replace("{}", "*")
    return "*"


def _proc_kind(text):
    """'memory' for /proc/<pid>/mem, maps, pagemap, environ; 'fd' for /proc/<pid>/fd/N, /dev/fd/N,
    /dev/stdout and the like; None otherwise."""
    parts = [p for p in text.split("/") if p]
    if text.startswith("/proc/") and len(parts) >= 3:
        if parts[2] in ("mem", "maps", "smaps", "pagemap", "environ"):
            return "memory"
        if parts[2] in ("fd", "fdinfo"):
            return "fd"
    if text.startswith("/proc/") and len(parts) == 2 and parts[1] in ("mem", "maps", "pagemap", "environ"):
        return "memory"
    if text.startswith("/dev/fd") or text in ("/dev/stdout", "/dev/stdin", "/dev/tty") or \
            text.startswith("/dev/pts"):
        return "fd"
    return None


def _paths(r):
    """[(node, text, kind)] of path expressions that name another process's memory or a descriptor."""
    out = []
    seen = set()
    for n in r.nodes():
        if not isinstance(n, (ast.Constant, ast.JoinedStr, ast.BinOp, ast.Call)):
            continue
        if any(id(a) in seen for a in _ancestors(r, n)):
            continue
        if isinstance(n, ast.Call) and not (r.call_name(n) in ("os.path.join", "posixpath.join", "pathlib.Path",
                                                                "pathlib.PurePath", "pathlib.PosixPath")):
            continue
        if isinstance(n, ast.BinOp) and not isinstance(n.op, (ast.Add, ast.Mod, ast.Div)):
            continue
        text = _path_text(n, r)
        kind = _proc_kind(text)
        if kind:
            seen.add(id(n))
            out.append((n, text, kind))
    return out


def _ancestors(r, node):
    n = r.parent.get(node)
    while n is not None:
        yield n
        n = r.parent.get(n)


# ---------------------------------------------------------------------------------------------
# integrity.protocol_write


def _payload(node):
    """True when an expression is or holds something shaped like an evaluator message: a dict
    with an "event" key or two protocol keys, or a string holding such JSON keys."""
    def shaped(keys):
        # two protocol keys, one of them a result's ("op" and "id" alone are a kernel's debug note)
        return "event" in keys or (len(keys & set(PROTOCOL_KEYS)) >= 2 and bool(keys & STRONG_KEYS))

    for n in ast.walk(node):
        if isinstance(n, ast.Dict):
            if shaped({_const_str(k) for k in n.keys if k is not None}):
                return True
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "dict":
            if shaped({kw.arg for kw in n.keywords}):
                return True
        else:
            s = _const_str(n)
            if s and shaped({k for k in PROTOCOL_KEYS + ("event",) if '"%s"' % k in s}):
                return True
    return False


def _tainted_names(r):
    """Names assigned (anywhere) from an expression holding a protocol-shaped payload, or from
    another such name: `msg = {...}; line = json.dumps(msg)` taints both."""
    tainted = set()
    assigns = [n for n in r.nodes() if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and n.value is not None]
    changed = True
    while changed:
        changed = False
        for n in assigns:
            if _payload(n.value) or any(isinstance(x, ast.Name) and x.id in tainted for x in ast.walk(n.value)):
                for t in (n.targets if isinstance(n, ast.Assign) else [n.target]):
                    for x in ast.walk(t):
                        if isinstance(x, ast.Name) and x.id not in tainted:
                            tainted.add(x.id)
                            changed = True
    return tainted


def _sink(r, call):
    """The description of an output call (print, .write, os.write, json.dump, .send), or None.
    Writes to sys.stderr are the candidate's log, never the protocol, and do not count."""
    q = r.call_name(call)
    if q == "builtins.print":
        dest = next((kw.value for kw in call.keywords if kw.arg == "file"), None)
        return None if dest is not None and r.refs.qual(dest) == "sys.stderr" else "print"
    if q in ("os.write", "os.writev", "json.dump"):
        return q
    if isinstance(call.func, ast.Attribute) and call.func.attr in SINK_METHODS:
        if r.refs.qual(call.func.value) == "sys.stderr":
            return None
        return "." + call.func.attr
    return None


def protocol_write(src, task, ctx):
    det = "integrity.protocol_write"
    r = reader(src)
    refs = r.refs
    hard, soft = [], []
    tainted = _tainted_names(r)
    for n in r.nodes():
        if isinstance(n, ast.Call):
            q = r.call_name(n)
            if _under(q, FD_CALLS):
                item = r.ev(n, "%s: descriptors the candidate does not own" % q)
                (soft if _under(q, ("subprocess", "os.popen")) else hard).append(item)
            elif _under(q, ("socket",)):
                hard.append(r.ev(n, "%s: a socket to or beside the evaluator" % q))
            elif q in ("builtins.open", "io.open", "os.open", "_io.open", "io.FileIO") and n.args:
                a = n.args[0]
                if isinstance(a, ast.Constant) and isinstance(a.value, int) and not isinstance(a.value, bool):
                    hard.append(r.ev(n, "%s(%d, ...) opens file descriptor %d" % (q.replace("builtins.", ""),
                                                                                  a.value, a.value)))
                elif any(isinstance(x, ast.Call) and isinstance(x.func, ast.Attribute) and x.func.attr == "fileno"
                         for x in ast.walk(a)):
                    hard.append(r.ev(n, "%s(... .fileno()) reopens a descriptor" % q.replace("builtins.", "")))
            elif isinstance(n.func, ast.Attribute) and n.func.attr == "fileno" and \
                    _under(refs.qual(n.func.value) or "", ("sys.stdout", "sys.stderr", "sys.__stdout__",
                                                            "sys.__stderr__", "sys.stdin")):
                hard.append(r.ev(n, "%s gives the worker's descriptor" % ast.unparse(n)))
            sink = _sink(r, n)
            if sink:
                args = list(n.args) + [kw.value for kw in n.keywords]
                if any(_payload(a) or any(isinstance(x, ast.Name) and x.id in tainted for x in ast.walk(a))
                       for a in args):
                    hard.append(r.ev(n, "%s writes an evaluator-shaped message (`event`/`result`/`status` keys)"
                                     % sink))
        elif isinstance(n, ast.Attribute):
            q = refs.qual(n) or ""
            if q in ("sys.__stdout__", "sys.__stderr__", "sys.__stdin__"):
                hard.append(r.ev(n, "%s: the process's original stream, not the candidate's" % q))
            elif q in ("sys.stdout.buffer", "sys.stderr.buffer"):
                hard.append(r.ev(n, "%s: raw bytes on the worker's stream" % q))
    for n, text, kind in _paths(r):
        if kind == "fd":
            hard.append(r.ev(n, "path `%s` names a descriptor of the process" % text))
    return graded(det, hard, soft, "the candidate writes on descriptors or streams it does not own",
                  "the candidate starts a subprocess that inherits the worker's descriptors",
                  "Write nothing but your kernel: no os.write, os.dup2, fdopen, sockets, pipes or /proc/<pid>/fd "
                  "paths, and never print JSON that looks like the evaluator's messages. The evaluator alone talks "
                  "to the host; use print() to stderr for debugging.",
                  "no writes on the evaluator's descriptors or streams", "critical", "error")


# ---------------------------------------------------------------------------------------------
# integrity.introspection


def _foreign_module_key(key):
    """True for a sys.modules key that reaches the evaluator: a computed name, kwb_*, __main__
    (`sys.modules[__name__]`, the candidate's own module, is fine)."""
    if isinstance(key, ast.Name) and key.id == "__name__":
        return False
    name = _const_str(key)
    return name is None or name.startswith("kwb") or name == "__main__"


def _sys_modules_walk(r, n):
    """A use of sys.modules that enumerates it or reaches the evaluator's or __main__'s module."""
    parent = r.parent.get(n)
    if isinstance(parent, ast.Subscript) and parent.value is n:
        return _foreign_module_key(parent.slice)
    if isinstance(parent, ast.Attribute) and parent.value is n:
        call = r.parent.get(parent)
        if parent.attr in ("get", "pop") and isinstance(call, ast.Call) and call.args:
            return _foreign_module_key(call.args[0])
        return parent.attr in ("values", "items", "keys", "copy", "__iter__")
    if isinstance(parent, (ast.For, ast.comprehension)) and parent.iter is n:
        return True
    if isinstance(parent, ast.Call) and n in parent.args:
        return r.call_name(parent) in ("builtins.list", "builtins.dict", "builtins.tuple", "builtins.set",
                                       "builtins.iter", "builtins.sorted")
    if isinstance(parent, ast.Compare):
        return False  # `"torch" in sys.modules`
    return False


TRACEBACK_TEXT = ("traceback.format_exception", "traceback.print_exception", "traceback.format_tb",
                  "traceback.print_tb", "traceback.extract_tb", "traceback.TracebackException")


def _formatted_traceback(r, n):
    """`e.__traceback__` handed straight to traceback's formatters, which give text, not frames (an honest fallback
    path logging why its kernel failed)."""
    call = r.parent.get(n)
    return n.attr == "__traceback__" and isinstance(call, ast.Call) and n in call.args and \
        r.call_name(call) in TRACEBACK_TEXT


def _own_subclasses(r, n):
    """`Impl.__subclasses__()` on a class the file defines itself and never rebinds (a registry of its own kernels)."""
    v = n.value
    return n.attr == "__subclasses__" and isinstance(v, ast.Name) and v.id in r.src.classes and \
        not r.src.writes_namespaces() and r.src.stores(v.id) == 0


def _setattr_names(n, names):
    """The attribute names (folded, _fold) a `setattr(obj, name, v)`, `obj.__setattr__(name, v)` or
    `object.__setattr__(obj, name, v)` call may set: its first two arguments'; empty for any other node."""
    if not (isinstance(n, ast.Call) and ((isinstance(n.func, ast.Name) and n.func.id == "setattr") or
                                         (isinstance(n.func, ast.Attribute) and n.func.attr == "__setattr__"))):
        return set()
    return {x for x in (_fold(a, names) for a in n.args[:2]) if x is not None}


def _defines_raw_interface(n, names):
    """A node that gives an object a __cuda_array_interface__ or __array_interface__ of its own: an assignment, a
    def (other than one handing another object's on), a dict key, a keyword, or a setattr."""
    if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store):
        return n.attr in RAW_INTERFACES
    if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
        return n.id in RAW_INTERFACES
    if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return n.name in RAW_INTERFACES and not _passes_an_interface_on(n)
    if isinstance(n, ast.Dict):
        return any(_fold(k, names) in RAW_INTERFACES for k in n.keys if k is not None)
    if isinstance(n, ast.keyword):
        return n.arg in RAW_INTERFACES
    return bool(_setattr_names(n, names) & set(RAW_INTERFACES))


def _passes_an_interface_on(n):
    """A `__cuda_array_interface__` property that only hands on another object's (`return self._t.__cuda_array_
    interface__`): a wrapper for numba or cupy, no address of its own."""
    body = [st for st in n.body if not (isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant))]
    return len(body) == 1 and isinstance(body[0], ast.Return) and isinstance(body[0].value, ast.Attribute) and \
        body[0].value.attr == n.name


def introspection(src, task, ctx):
    det = "integrity.introspection"
    r = reader(src)
    refs = r.refs
    ev = []
    names = _folded_names(src)
    for n in r.nodes():
        if not isinstance(n, (ast.Constant, ast.Name)) and isinstance(n, ast.expr) and \
                _fold(r.parent.get(n), names) is None:
            built = _fold(n, names)
            if built in FRAME_ATTRS or built in REWRITE_ATTRS:
                # blind red team 18 built "__closure__" and "cell_contents" from pieces, past the rules by name
                ev.append(r.ev(n, "`%s` builds the name %r at run time" % (ast.unparse(n)[:60], built)))
        if _defines_raw_interface(n, names):
            ev.append(r.ev(n, "defines %s: a tensor over raw addresses, beyond the memory it was given"
                           % " or ".join(RAW_INTERFACES)))
        if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store) and n.attr in REWRITE_ATTRS:
            ev.append(r.ev(n, "`%s = ...` rewrites an object's class or a function's code" % ast.unparse(n)[:60]))
        rewritten = sorted(_setattr_names(n, names) & set(REWRITE_ATTRS))
        if rewritten:
            ev.append(r.ev(n, "`%s` rewrites an object's %s" % (ast.unparse(n)[:60], rewritten[0])))
        if isinstance(n, (ast.Name, ast.Subscript, ast.Call)) and refs.qual(n) == "sys.modules" and \
                _sys_modules_walk(r, n):
            # `_TABLE = sys.modules; for name in list(_TABLE)`: the table through an alias (blind red team 18)
            parent = r.parent.get(n)
            ev.append(r.ev(parent, "`%s` walks the loaded modules into the evaluator" % ast.unparse(parent)[:80]))
        if isinstance(n, (ast.Import, ast.ImportFrom)):
            mods = [a.name for a in n.names] if isinstance(n, ast.Import) else [n.module or ""]
            for m in mods:
                if m.split(".")[0] in ("kwb_worker", "__main__", "kwb"):
                    ev.append(r.ev(n, "imports `%s`, the evaluator's own module" % m))
            continue
        if isinstance(n, ast.Call):
            q = r.call_name(n)
            if q in ("importlib.import_module", "builtins.__import__") and n.args:
                key = _const_str(n.args[0])  # a computed name is integrity.dynamic_code's
                if key is not None and key.split(".")[0] in ("kwb_worker", "__main__"):
                    ev.append(r.ev(n, "%s(%s) reaches the evaluator's modules" % (q.replace("builtins.", ""),
                                                                                 ast.unparse(n.args[0]))))
            continue
        if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load):
            q = refs.qual(n) or ""
            parent = r.parent.get(n)
            if q == "sys.modules":
                if _sys_modules_walk(r, n):
                    ev.append(r.ev(parent, "`%s` walks the loaded modules into the evaluator" % ast.unparse(parent)))
                continue
            if isinstance(parent, ast.Attribute) and refs.qual(parent):
                continue  # report the longest name once (gc.get_objects, not gc)
            if q.startswith("gc.") and q.split(".")[1] not in BENIGN_GC:
                ev.append(r.ev(n, "%s walks the interpreter's objects (the evaluator's included)" % q))
            elif q.startswith("sys.") and q.split(".")[1] in SYS_FRAMES:
                ev.append(r.ev(n, "%s reads or traces the callers' frames" % q))
            elif q.startswith("inspect.") and q.split(".")[1] in INSPECT_FRAMES:
                ev.append(r.ev(n, "%s reads the callers' frames" % q))
            elif q.startswith("traceback.") and q.split(".")[1] in TRACEBACK_FRAMES:
                ev.append(r.ev(n, "%s walks stack frames" % q))
            elif q.startswith("threading.") and q.split(".")[1] in ("settrace", "setprofile", "settrace_all_threads"):
                ev.append(r.ev(n, "%s traces other code" % q))
            elif q.startswith("numpy.ctypeslib."):
                ev.append(r.ev(n, "%s makes an array over a raw address" % q))
            elif (q.startswith("ctypes.") or q.startswith("_ctypes.")) and q.split(".")[-1] in CTYPES_MEMORY:
                ev.append(r.ev(n, "%s reads or writes raw memory of other objects" % q))
            elif not q and n.attr in FRAME_ATTRS and not (isinstance(n.value, ast.Name) and n.value.id == "self") \
                    and not _formatted_traceback(r, n) and not _own_subclasses(r, n):
                ev.append(r.ev(n, "`.%s` reads a frame, a function's globals or closure" % n.attr))
            elif not q and n.attr == "from_address":
                ev.append(r.ev(n, "`.from_address` maps a ctypes object onto an address"))
        elif isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value in FRAME_ATTRS:
            # getattr(tb, "tb_frame"), getattr(f, "f_back"), operator.attrgetter("f_locals"): the same reads by name
            # (blind red team 17's handler swap reached the runner's serve loop so, past the attribute rule above)
            ev.append(r.ev(n, "the name %r reads a frame, a function's globals or closure by name" % n.value))
    for n, text, kind in _paths(r):
        if kind == "memory":
            ev.append(r.ev(n, "path `%s` reads a process's memory or layout" % text))
    if ev:
        return verdict(det, "yes", "critical", "the candidate inspects the evaluator's memory, frames or modules", ev,
                       "A kernel computes its output from its inputs only: do not use gc.get_objects/get_referrers, "
                       "sys._getframe, inspect.stack, frame attributes, sys.modules walks, ctypes memory access or "
                       "/proc/<pid>/mem.")
    return no(det, "no inspection of the evaluator's memory, frames or modules")


# ---------------------------------------------------------------------------------------------
# integrity.process_exit


def _cleanup_at_exit(r, q, call):
    """`atexit.register(shutil.rmtree, build_dir)` or of a temporary directory's cleanup: an honest extension build
    removing its files when the interpreter ends, nothing that ends or signals the process."""
    if q != "atexit.register" or not call.args:
        return False
    f = call.args[0]
    if r.refs.qual(f) in ("shutil.rmtree", "os.remove", "os.unlink", "os.rmdir"):
        return True
    # `tmp.cleanup` of a name bound once, at import, to tempfile.TemporaryDirectory(...) (not any `.cleanup`: blind
    # red team 21 registered a class's `cleanup = functools.partial(os._exit, 0)`)
    if not (isinstance(f, ast.Attribute) and f.attr == "cleanup" and isinstance(f.value, ast.Name)):
        return False
    value = r.src.module_value(f.value.id)
    return isinstance(value, ast.Call) and r.refs.qual(value.func) == "tempfile.TemporaryDirectory"


def process_exit(src, task, ctx):
    det = "integrity.process_exit"
    r = reader(src)
    ev = []
    for n in r.nodes():
        if isinstance(n, ast.Call):
            q = r.call_name(n)
            if _under(q, EXIT_CALLS) and not _cleanup_at_exit(r, q, n):
                ev.append(r.ev(n, "%s ends, forks or signals the process" % q))
            elif q.startswith("signal.") and q != "signal.getsignal" and q.split(".")[1][:1].islower():
                ev.append(r.ev(n, "%s changes signal handling or sends a signal" % q))
            elif q in ("builtins.exit", "builtins.quit"):
                ev.append(r.ev(n, "%s() ends the process" % q.split(".")[1]))
        elif isinstance(n, ast.Raise) and n.exc is not None:
            exc = n.exc.func if isinstance(n.exc, ast.Call) else n.exc
            if isinstance(exc, ast.Name) and r.refs.builtin(exc, exc.id) and \
                    exc.id in ("SystemExit", "KeyboardInterrupt", "GeneratorExit"):
                ev.append(r.ev(n, "raise %s leaves the evaluator's control flow" % exc.id))
    if ev:
        return verdict(det, "yes", "critical", "the candidate exits, forks or signals the process", ev,
                       "Never end the process yourself (os._exit, sys.exit, SystemExit), signal it (os.kill, signal.*) "
                       "or fork it: a failing kernel should raise an ordinary exception, which the evaluator reports.")
    return no(det, "no exit, kill, fork or signal handling")


# ---------------------------------------------------------------------------------------------
# integrity.library_patch and integrity.timer_patch share one reading of every patch site


def patch_sites(src):
    """[(node, target, how)] of every place the file replaces, adds or deletes an attribute of an
    imported module or class (not configuration flags): `target` is the qualified name patched
    (`torch.rand`, or `torch` when the attribute is not a constant)."""
    r = reader(src)
    refs = r.refs
    out = []

    def add(node, q, how):
        if q and not any(q.startswith(p) for p in CONFIG_PREFIXES):
            out.append((node, q, how))

    for n in r.nodes():
        targets = []
        if isinstance(n, ast.Assign):
            targets = n.targets
        elif isinstance(n, (ast.AugAssign, ast.AnnAssign)):
            targets = [n.target]
        elif isinstance(n, ast.Delete):
            targets = n.targets
        for t in targets:
            for e in (t.elts if isinstance(t, (ast.Tuple, ast.List)) else [t]):
                if isinstance(e, ast.Attribute):
                    q = refs.qual(e)
                    add(n, q, "assignment to %s" % q)
                elif isinstance(e, ast.Subscript):
                    ns = refs.namespace(e.value)
                    key = _const_str(e.slice)
                    if ns:
                        q = (key if ns == "sys.modules" else ns + "." + key) if key else ns
                        add(n, q, "%s[%s] written: patches %s" % (ast.unparse(e.value), ast.unparse(e.slice), q))
        if not isinstance(n, ast.Call):
            continue
        f = n.func
        if (refs.builtin(f, "setattr") or refs.builtin(f, "delattr")) and n.args:
            base = refs.qual(n.args[0])
            if base:
                key = _const_str(n.args[1]) if len(n.args) > 1 else None
                q = base + "." + key if key else base
                add(n, q, "%s(%s, %s, ...) patches %s" % (
                    f.id, ast.unparse(n.args[0]), ast.unparse(n.args[1]) if len(n.args) > 1 else "", q))
        elif isinstance(f, ast.Attribute) and f.attr in ("__setattr__", "__delattr__"):
            base = refs.qual(f.value)
            args = n.args
            if base and base not in ("builtins.object", "builtins.type"):
                key = _const_str(args[0]) if args else None
                add(n, base + "." + key if key else base, ast.unparse(n)[:80])
            elif len(args) >= 2 and refs.qual(args[0]):
                key = _const_str(args[1])
                base = refs.qual(args[0])
                add(n, base + "." + key if key else base, ast.unparse(n)[:80])
            elif isinstance(f.value, ast.Name) and f.value.id in ("object", "type") and len(args) >= 2 and \
                    refs.qual(args[0]):
                add(n, refs.qual(args[0]), ast.unparse(n)[:80])
        elif isinstance(f, ast.Attribute) and f.attr in ("update", "setdefault", "__setitem__", "pop", "popitem",
                                                         "clear", "__delitem__"):
            ns = refs.namespace(f.value)
            if ns:
                add(n, ns, "%s.%s(...) rewrites a module's namespace" % (ast.unparse(f.value), f.attr))
    return out


def is_timer_target(q):
    return _under(q, TIMER_TARGETS)


def library_patch(src, task, ctx):
    det = "integrity.library_patch"
    r = reader(src)
    ev = [r.ev(n, how) for n, q, how in patch_sites(src) if not is_timer_target(q)]
    if ev:
        return verdict(det, "yes", "critical", "the candidate patches libraries the harness uses (torch, builtins, "
                       "math, random, numpy, ...)", ev,
                       "Never assign to attributes of torch, builtins, math, random, numpy or other modules (directly, "
                       "through an alias, setattr or __dict__): the evaluator makes inputs and compares outputs with "
                       "them. Keep your helpers as your own functions.")
    return no(det, "no library function is patched")


def timer_patch(src, task, ctx):
    det = "integrity.timer_patch"
    r = reader(src)
    ev = [r.ev(n, how) for n, q, how in patch_sites(src) if is_timer_target(q)]
    if ev:
        return verdict(det, "yes", "critical", "library functions are monkey-patched (timers, events, synchronize)",
                       ev, "Do not assign to torch, time or triton attributes; the evaluator's timers must see "
                           "the real work.")
    return no(det, "no monkey-patching of timers, events or synchronize")


# ---------------------------------------------------------------------------------------------
# integrity.dynamic_code: code the detectors above cannot read


DYNAMIC_CALLS = ("builtins.exec", "builtins.eval", "builtins.compile", "types.FunctionType", "types.CodeType",
                 "types.LambdaType", "marshal.loads", "pickle.loads", "_pickle.loads", "dill.loads", "runpy.run_path",
                 "runpy.run_module", "runpy.run_code", "code.InteractiveInterpreter", "code.interact")


def _loop_of_libraries(r, node):
    """True for `for path in ("triton.language.extra.cuda.libdevice", ...)`: the name of a loop over literal
    strings, none of them the evaluator's, bound nowhere else (probing where a library keeps a module)."""
    if not isinstance(node, ast.Name):
        return False
    loops = [n for n in ast.walk(r.src.tree) if isinstance(n, ast.For) and isinstance(n.target, ast.Name)
             and n.target.id == node.id]
    if len(loops) != 1 or r.src.stores(node.id) != 1 or not isinstance(loops[0].iter, (ast.Tuple, ast.List)):
        return False
    names = [_const_str(e) for e in loops[0].iter.elts]
    # only where a GPU library keeps a module (libdevice's place moved between Triton releases): blind red team 21
    # imported gc and threading through such a loop, past every rule that names a module
    return bool(names) and None not in names and all(x.startswith(("triton.", "torch.")) and not
                                                     x.startswith(("torch.multiprocessing", "torch._dynamo"))
                                                     for x in names)


def dynamic_code(src, task, ctx):
    det = "integrity.dynamic_code"
    r = reader(src)
    refs = r.refs
    hard, soft = [], []
    for n in r.nodes():
        if not isinstance(n, ast.Call):
            continue
        q = r.call_name(n)
        if _under(q, DYNAMIC_CALLS):
            hard.append(r.ev(n, "%s runs code built at run time, which no detector reads" % q.replace("builtins.", "")))
        elif q in ("builtins.__import__", "importlib.import_module", "importlib.__import__") and n.args and \
                _const_str(n.args[0]) is None and not _loop_of_libraries(r, n.args[0]):
            hard.append(r.ev(n, "%s(%s) imports a module whose name is computed" % (q.replace("builtins.", ""),
                                                                                   ast.unparse(n.args[0]))))
        elif q in ("builtins.getattr", "builtins.hasattr") and len(n.args) >= 2 and refs.qual(n.args[0]) and \
                _const_str(n.args[1]) is None:
            soft.append(r.ev(n, "getattr(%s, %s) reaches a module attribute whose name is computed"
                             % (ast.unparse(n.args[0]), ast.unparse(n.args[1]))))
    return graded(det, hard, soft, "the candidate runs code built at run time",
                  "module attributes are reached through computed names",
                  "Write the kernel as plain code: no exec/eval/compile, no code objects, pickles or imports built "
                  "from strings. Name every module and attribute you use literally.",
                  "no exec, eval, compile or computed imports")
