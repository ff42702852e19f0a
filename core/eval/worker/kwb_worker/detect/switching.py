# SPDX-License-Identifier: MIT
"""integrity.call_switch: a forward that behaves differently depending on how many times it has
been called, on the clock, or on whether the evaluator is capturing a CUDA graph. Exact for its
first calls (the correctness trials) and then doing less work (the timed calls) is the cheat this
reads: a counter kept across calls (`self.calls += 1`, a `global` counter, `next(itertools.count())`)
or a phase probe (`torch.cuda.is_current_stream_capturing()`, `time.perf_counter()`) that an `if`
in forward, or in what forward reaches, tests. A counter that is only kept, never tested, and a
one-shot `if self.w is None:` initialisation are not switches."""
import ast

from .source import dotted, names_in
from .verdicts import evidence, graded

PHASE_PROBES = ("torch.cuda.is_current_stream_capturing", "torch.cuda.graphs.is_current_stream_capturing",
                "torch.compiler.is_compiling", "torch._dynamo.is_compiling", "torch.is_grad_enabled",
                "torch.is_inference_mode_enabled", "torch.cuda.memory_allocated", "torch.cuda.memory_reserved",
                "os.getppid", "sys.gettrace")
CLOCKS = ("time.time", "time.perf_counter", "time.monotonic", "time.process_time", "time.time_ns",
          "time.perf_counter_ns", "time.monotonic_ns", "datetime.datetime.now")


def _globals_of(f):
    return {n for g in ast.walk(f) if isinstance(g, ast.Global) for n in g.names}


def _is_counter_update(node, globals_):
    """The counter name an update statement keeps across calls, or None."""
    if isinstance(node, ast.AugAssign) and isinstance(node.op, (ast.Add, ast.Sub)):
        d = dotted(node.target)
        if d and (d.startswith("self.") or d in globals_):
            return d
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        d = dotted(node.targets[0])
        if not d or not (d.startswith("self.") or d in globals_):
            return None
        v = node.value
        if isinstance(v, ast.BinOp) and isinstance(v.op, (ast.Add, ast.Sub)) and \
                d in (dotted(v.left), dotted(v.right)):
            return d
    return None


def call_switch(src, task, ctx):
    det = "integrity.call_switch"
    funcs = [f for f, _ in ctx.contexts]
    counters, updates = set(), []
    for f in funcs:
        g = _globals_of(f)
        for n in ast.walk(f):
            d = _is_counter_update(n, g)
            if d:
                counters.add(d)
                updates.append((n, d))
    ev, soft = [], []
    for f in funcs:
        origin = {c: {"the call counter `%s`" % c} for c in counters}  # name -> what decides it
        assigns = [n for _ in range(2) for n in ast.walk(f)]  # twice: chains in any order
        for n in assigns:  # locals computed from a counter, a clock or a phase probe
            if isinstance(n, ast.Assign):
                found = _origins(src, n.value, origin)
                if isinstance(n.value, ast.Call) and isinstance(n.value.func, ast.Name) and n.value.func.id == "next":
                    found.add("a call counter (`%s`)" % ast.unparse(n.value))
                for t in n.targets:
                    for name in names_in(t):
                        if found:
                            origin.setdefault(name, set()).update(found)
        for n in ast.walk(f):
            if isinstance(n, (ast.If, ast.IfExp, ast.While)):
                found = _origins(src, n.test, origin)
                if found and isinstance(n, ast.If) and (_inert(src, n.body) and _inert(src, n.orelse)
                                                        or _autograd_idiom(n.test, src, f)):
                    soft.append(evidence(n.lineno, n.lineno, "`%s` in %s decides only a log line, a check or "
                                         "autograd's path (%s)" % (ast.unparse(n.test), f.name, ", ".join(sorted(found)))))
                elif found and _first_call_only(n.test, counters):
                    soft.append(evidence(n.lineno, n.lineno, "`%s` in %s: the first call differs (warm-up or "
                                         "compilation is fine; a different result is not)" % (ast.unparse(n.test), f.name)))
                elif found:
                    ev.append(evidence(n.lineno, n.lineno, "`%s` in %s branches on %s"
                                       % (ast.unparse(n.test), f.name, ", ".join(sorted(found)))))
    shown = [evidence(n.lineno, n.end_lineno, "`%s` counts calls across forward calls" % d)
             for n, d in updates if any("`%s`" % d in e["text"] or d in e["text"] for e in ev + soft)]
    return graded(det, ev + shown if ev else [], soft + shown if not ev else soft,
                  "forward switches behaviour by call count, clock or capture phase",
                  "forward treats its first call differently",
                  "Compute the same thing the same way on every call: no call counters, clocks or graph-capture "
                  "probes deciding what forward does. Every timed call's output is checked.",
                  "no call-count, clock or capture-phase switch in forward")


def _first_call_only(test, counters):
    """`calls == 1`, `calls <= 1`, `calls < 2`, `calls == 0`, `not calls` on a counter itself: a
    branch taken on the first call only (warm-up, compilation), not a switch after N calls."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return dotted(test.operand) in counters
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and dotted(test.left) in counters):
        return False
    c = test.comparators[0]
    if not (isinstance(c, ast.Constant) and isinstance(c.value, int)):
        return False
    op = test.ops[0]
    return (isinstance(op, ast.Eq) and c.value <= 1) or (isinstance(op, ast.LtE) and c.value <= 1) or \
        (isinstance(op, ast.Lt) and c.value <= 2)


def _origins(src, node, origin):
    """What decides an expression's value: counters and locals derived from them, clocks, probes."""
    out = set()
    for x in ast.walk(node):
        if isinstance(x, (ast.Name, ast.Attribute)):
            out |= origin.get(dotted(x), set())
        if isinstance(x, ast.Call):
            q = src.qual(x.func) or ""
            if q in PHASE_PROBES:
                out.add("%s (the evaluator's phase)" % q)
            elif q in CLOCKS:
                out.add("the clock (%s)" % q)
    return out


def _logger(src, name):
    """A name bound once, at import, to `logging.getLogger(...)`."""
    value = None if src.defines(name) else src.module_value(name)
    return isinstance(value, ast.Call) and (src.qual(value.func) or "") == "logging.getLogger"


def _inert(src, stmts, depth=0):
    """Statements that change no output: pass, assert, raise, a log line or a print, a warning, or a call of one
    of the file's functions made of those only (an input check), and ifs of such (`if not is_compiling():
    _check(x)`, `if self.calls % 1000 == 0: log.info(...)`)."""
    if depth == 0 and _hooks_text(src):
        return False  # a log line or a print may run the file's own code (a handler's emit, a __repr__)
    for st in stmts:
        if any(isinstance(x, ast.NamedExpr) for x in ast.walk(st)) or any(
                isinstance(x, ast.Call) and (dotted(x.func) or "").startswith("self.") for x in ast.walk(st)):
            return False  # `assert (fast := True)`, `assert self.flip()`: a check that sets something
        if isinstance(st, ast.Pass):
            continue
        if isinstance(st, (ast.Assert, ast.Raise)) and not any(
                isinstance(x, ast.Call) and isinstance(x.func, ast.Name) and x.func.id in src.functions and
                not _inert_call(src, x.func.id, depth) for x in ast.walk(st)):
            continue
        if isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant):
            continue  # a docstring
        if isinstance(st, ast.If) and _inert(src, st.body, depth) and _inert(src, st.orelse, depth):
            continue
        if isinstance(st, ast.Expr) and isinstance(st.value, ast.Call):
            f = st.value.func
            q = src.qual(f) or ""
            d = dotted(f) or ""
            if q in ("warnings.warn", "builtins.print") or q.startswith("logging.") or _logger(src, d.split(".")[0]) \
                    or (isinstance(f, ast.Name) and f.id == "print" and not (src.stores("print") or
                                                                              src.defines("print"))):
                continue
            if isinstance(f, ast.Name) and _inert_call(src, f.id, depth):
                continue
        return False
    return True


def _inert_call(src, name, depth):
    """A call of one of the file's functions whose body is inert (_inert), two calls deep at most."""
    return name in src.functions and depth < 2 and _inert(src, src.functions[name].body, depth + 1)


def _hooks_text(src):
    """True when the file defines what a log line or a print can run: a logging handler's or filter's method, a
    stream's write, an object's text (blind red team 21 flipped a mode in a handler's emit)."""
    return any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name in (
        "emit", "handle", "filter", "write", "flush", "format", "__str__", "__repr__", "__format__", "getMessage")
        for n in ast.walk(src.tree)) or any(
        isinstance(n, ast.Attribute) and n.attr in ("addHandler", "addFilter", "setLogRecordFactory", "setLoggerClass")
        for n in ast.walk(src.tree))


def _autograd_idiom(test, src, func):
    """`torch.is_grad_enabled() and x.requires_grad`, exactly, x a parameter of the function: autograd's path or the
    plain one, decided by the input (the evaluator's inputs never require grad). Nothing else in the test (blind red
    team 21: `calls > 3 and self.cfg.requires_grad`)."""
    if not (isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) and len(test.values) == 2):
        return False
    params = {a.arg for a in func.args.args} - {"self"}
    grad = [v for v in test.values if isinstance(v, ast.Call) and
            (src.qual(v.func) or "") == "torch.is_grad_enabled" and not v.args]
    req = [v for v in test.values if isinstance(v, ast.Attribute) and v.attr == "requires_grad" and
           isinstance(v.value, ast.Name) and v.value.id in params]
    return len(grad) == 1 and len(req) == 1
