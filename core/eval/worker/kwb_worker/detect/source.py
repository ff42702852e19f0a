# SPDX-License-Identifier: MIT
"""What the detectors know about one Python file, read from its syntax tree.

`SourceFile` resolves import aliases (so `tl.tanh`, `triton.language.tanh` and
`from triton import language as t; t.tanh` are the same thing, while a local variable that
happens to be called `tl_tanh` is not), finds `@triton.jit` functions, kernel launches
`kernel[grid](...)`, CUDA sources handed to `load_inline`, and the candidate's classes.
`TaskInfo` reads a KernelBench task: its shape constants, the shapes `get_inputs()` builds,
the values `get_init_inputs()` passes, and what `Model.forward` returns.
`Sym` and `Resolver` evaluate size expressions (`x.shape[1]`, `self.num_layers`,
`triton.cdiv(H, BLOCK)`) to numbers labelled with the task constants they come from.
"""
import ast
import math

RECURRENT_MODULES = {"torch.nn.GRU", "torch.nn.LSTM", "torch.nn.RNN", "torch.nn.GRUCell",
                     "torch.nn.LSTMCell", "torch.nn.RNNCell"}


def dotted(node):
    """`a.b.c` for a chain of attributes over a name, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def walk_ordered(node):
    """Yield (name, is_store, lineno) for every Name in evaluation order: an assignment's value
    before its targets, an augmented assignment's target as a read then a write, a loop's
    iterable before its target and body."""
    if isinstance(node, list):
        for n in node:
            yield from walk_ordered(n)
        return
    if isinstance(node, ast.Name):
        yield node.id, isinstance(node.ctx, ast.Store), node.lineno
    elif isinstance(node, ast.Assign):
        yield from walk_ordered(node.value)
        for t in node.targets:
            yield from walk_ordered(t)
    elif isinstance(node, ast.AnnAssign):
        if node.value is not None:
            yield from walk_ordered(node.value)
        yield from walk_ordered(node.target)
    elif isinstance(node, ast.AugAssign):
        yield from walk_ordered(node.value)
        if isinstance(node.target, ast.Name):
            yield node.target.id, False, node.lineno
            yield node.target.id, True, node.lineno
        else:
            yield from walk_ordered(node.target)
    elif isinstance(node, ast.For):
        yield from walk_ordered(node.iter)
        yield from walk_ordered(node.target)
        yield from walk_ordered(node.body)
        yield from walk_ordered(node.orelse)
    else:
        for child in ast.iter_child_nodes(node):
            yield from walk_ordered(child)


def names_in(node):
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def loop_bound(loop):
    """(text of the bound, bound expression or None, step expression or None) of a loop."""
    if isinstance(loop, ast.While):
        test = loop.test
        if isinstance(test, ast.Compare) and len(test.comparators) == 1:
            return ast.unparse(test.comparators[0]), test.comparators[0], None
        return ast.unparse(test), None, None
    it = loop.iter
    if isinstance(it, ast.Call) and it.args:
        args = it.args
        if len(args) == 1:
            return ast.unparse(args[0]), args[0], None
        return ast.unparse(args[1]), args[1], args[2] if len(args) > 2 else None
    return ast.unparse(it), None, None


def is_range_call(src, node):
    """range(...), tl.range(...), tl.static_range(...)."""
    if not isinstance(node, ast.Call):
        return False
    if isinstance(node.func, ast.Name) and node.func.id == "range":
        return True
    return src.qual(node.func) in ("triton.language.range", "triton.language.static_range")


def is_accumulation(stmt, name):
    if isinstance(stmt, ast.AugAssign) and isinstance(stmt.op, (ast.Add, ast.Sub)):
        return name not in names_in(stmt.value)
    if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.BinOp) and isinstance(stmt.value.op, ast.Add):
        l, r = stmt.value.left, stmt.value.right
        if isinstance(l, ast.Name) and l.id == name and name not in names_in(r):
            return True
        if isinstance(r, ast.Name) and r.id == name and name not in names_in(l):
            return True
    return False


def stores_of(body, name):
    res = []
    for st in ast.walk(ast.Module(body=body, type_ignores=[])):
        if isinstance(st, ast.AugAssign) and isinstance(st.target, ast.Name) and st.target.id == name:
            res.append(st)
        elif isinstance(st, ast.Assign) and any(name in names_in(t) for t in st.targets):
            res.append(st)
    return res


def carried_names(params, func, loop):
    """(carried, stored) for a loop of `func`: the names whose value flows from one iteration to
    the next (defined before the loop or a parameter, read in the body before they are written,
    and not merely accumulated: `acc += x` is a reduction, `h = a * h + b` is state), and every
    name the body stores."""
    target = names_in(loop.target) if isinstance(loop, ast.For) else set()
    defined = set(params)
    for node in ast.walk(func):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and node.lineno < loop.lineno:
            defined.add(node.id)
    first, stored = {}, set()
    events = list(walk_ordered(loop.test if isinstance(loop, ast.While) else [])) + list(walk_ordered(loop.body))
    for name, is_store, _ in events:
        first.setdefault(name, "store" if is_store else "load")
        if is_store:
            stored.add(name)
    carried = []
    for name in sorted(stored):
        if name in target or name not in defined or first.get(name) != "load":
            continue
        stores = stores_of(loop.body, name)
        if stores and all(is_accumulation(s, name) for s in stores):
            continue
        carried.append(name)
    return carried, stored


def moving_names(loop, stored):
    """The loop variable and every name computed from it in the body (`row = b * T + t`); for a
    `while`, the counters its test reads that the body changes."""
    moving = names_in(loop.target) if isinstance(loop, ast.For) else names_in(loop.test) & stored
    changed = True
    while changed:
        changed = False
        for n in ast.walk(ast.Module(body=loop.body, type_ignores=[])):
            if isinstance(n, (ast.Assign, ast.AugAssign)) and names_in(n.value) & moving:
                for t in (n.targets if isinstance(n, ast.Assign) else [n.target]):
                    new = names_in(t) - moving
                    if new:
                        moving |= new
                        changed = True
    return moving


def unit_step(src, loop):
    """True for a loop that visits every step: range(T), range(0, T), range(0, T, 1), tl.range
    alike, and `while` loops; False for a blocked loop (range(0, T, BLOCK))."""
    if isinstance(loop, ast.While):
        return True
    if not is_range_call(src, loop.iter):
        return False
    args = loop.iter.args
    return len(args) < 3 or (isinstance(args[2], ast.Constant) and args[2].value == 1)


# Modules that are another under a second name: `posix.sched_setaffinity` is `os.sched_setaffinity` (blind red team
# 19 moved a thread onto another core by the posix spelling, past the rule that names the os one).
SAME_MODULE = {"posix": "os", "nt": "os"}


def _canonical(module):
    root, dot, rest = module.partition(".")
    return SAME_MODULE.get(root, root) + dot + rest


def is_main_guard(test):
    """`__name__ == "__main__"` either way round."""
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq):
        sides = [test.left, test.comparators[0]]
        return any(isinstance(s, ast.Name) and s.id == "__name__" for s in sides) and \
            any(isinstance(s, ast.Constant) and s.value == "__main__" for s in sides)
    return False


class SourceFile:
    """One parsed Python file (task or candidate). Never imported, never run."""

    def __init__(self, text, name="candidate"):
        self.text = text
        self.name = name
        self.lines = text.splitlines()
        self.error = None
        try:
            self.tree = ast.parse(text)
        except SyntaxError as e:
            self.tree = None
            self.error = e
            return
        self.aliases = {}
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.asname:
                        self.aliases[a.asname] = _canonical(a.name)
                    else:
                        root = a.name.split(".")[0]
                        self.aliases[root] = _canonical(root)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for a in node.names:
                    self.aliases[a.asname or a.name] = _canonical(node.module) + "." + a.name
        self.m_stores = {}  # name -> how many times the file binds it as a target (`x = ...`, `for x in`, ...)
        self.m_defs = set()  # names of every function and class, at any depth
        for n in ast.walk(self.tree):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                self.m_stores[n.id] = self.m_stores.get(n.id, 0) + 1
            elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self.m_defs.add(n.name)
        self.m_writesNamespaces = self._writes_namespaces()
        self.dead = self._dead_main()
        self.m_live = [n for n in ast.walk(self.tree) if n not in self.dead]
        self.m_jitBindings = {}
        self.functions = {}  # module-level functions by name
        self.classes = {}
        for node in self.tree.body:
            if isinstance(node, ast.FunctionDef):
                self.functions[node.name] = node
            elif isinstance(node, ast.ClassDef):
                self.classes[node.name] = node
        self.jit = {name: f for name, f in self.functions.items() if self._is_jit(f)}
        self.constants = {}
        for node in self.tree.body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                self.constants[node.targets[0].id] = node.value
        # Names assigned exactly once anywhere (a function's `src = HEADER % (...)`): sources built
        # by formatting still reach the CUDA reader.
        counts, once = {}, {}
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                name = node.targets[0].id
                counts[name] = counts.get(name, 0) + 1
                once[name] = node.value
        self.assigned_once = {n: v for n, v in once.items() if counts[n] == 1}
        self.builders = self._builders()
        self.extensions = self._find_extensions()

    # --- names -------------------------------------------------------------------------------
    def qual(self, node):
        """The fully qualified name of an imported thing (`tl.tanh` -> `triton.language.tanh`),
        None when the root of the chain is not an import."""
        d = dotted(node)
        if d is None:
            return None
        root, _, rest = d.partition(".")
        if root not in self.aliases:
            return None
        full = self.aliases[root]
        return full + ("." + rest if rest else "")

    def stores(self, name):
        """How many times the file binds `name` as a target (assignments, loops, with, del not counted)."""
        return self.m_stores.get(name, 0)

    def defines(self, name):
        """True when a function or class of that name is defined anywhere in the file."""
        return name in self.m_defs

    def module_value(self, name):
        """The value of `name` when its only binding is one module-level `name = value`, else None."""
        vals = [st.value for st in self.tree.body if isinstance(st, ast.Assign)
                and any(isinstance(t, ast.Name) and t.id == name for t in st.targets)]
        return vals[0] if len(vals) == 1 and self.stores(name) == 1 else None

    def writes_namespaces(self):
        return self.m_writesNamespaces

    def _writes_namespaces(self):
        """True when the file can rebind names behind the rules' backs: `globals()`, `vars()`, `locals()`, a
        `__dict__`, `sys.modules`, or `__name__` as a parameter, a target or a string (blind red team 21 made a
        `__main__` block run through `globals()["__na" + "me__"]` and a parameter called `__name__`, and turned
        a class's `__subclasses__()` into object's through `globals()["_Kernels"] = object`)."""
        return any((isinstance(n, ast.Name) and (n.id in ("globals", "vars", "locals") or
                                                 (n.id == "__name__" and not isinstance(n.ctx, ast.Load)))) or
                   (isinstance(n, ast.Attribute) and n.attr in ("__dict__", "modules")) or
                   (isinstance(n, ast.arg) and n.arg == "__name__") or
                   (isinstance(n, ast.Constant) and isinstance(n.value, str) and "__name__" in n.value)
                   for n in ast.walk(self.tree))

    def _dead_main(self):
        """The nodes under a module-level `if __name__ == "__main__":`, which never run when the evaluator imports
        the file (as kwb_candidate_*), unless the file can rebind `__name__` (writes_namespaces: then nothing is
        dead). Only at module level: inside a function `__name__` may be anything."""
        if self.writes_namespaces():
            return set()
        dead = set()
        for node in self.tree.body:
            if isinstance(node, ast.If) and is_main_guard(node.test):
                for st in node.body:
                    dead.update(ast.walk(st))
        return dead

    def walk(self):
        """Every node of the file that can run: ast.walk less the dead `__main__` block."""
        return self.m_live

    def _is_jit(self, f):
        for dec in f.decorator_list:
            target = dec.func if isinstance(dec, ast.Call) else dec
            if self.qual(target) in ("triton.jit", "triton.runtime.jit.jit"):
                return True
        return False

    def snippet(self, first, last=None):
        last = last or first
        text = " / ".join(l.strip() for l in self.lines[first - 1:min(last, first + 1)])
        return text[:160]

    # --- kernels and launches ------------------------------------------------------------------
    def launch_of(self, call):
        """(kernel name, grid node) when `call` is `kernel[grid](...)` of a jit function here."""
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Subscript):
            base = call.func.value
            if isinstance(base, ast.Call) and (self.qual(base.func) or "").split(".")[-1] in ("wrap_triton",
                                                                                             "capture_triton") \
                    and base.args:
                base = base.args[0]  # torch.library.wrap_triton(kernel)[grid](...)
            if isinstance(base, ast.Name) and base.id in self.jit:
                return base.id, call.func.slice
            if isinstance(base, ast.Name):
                chosen = self._jit_bindings(base.id)
                if chosen:
                    return chosen[0], call.func.slice  # `kernel = k1 if c else k2`: the first stands for them
        return None

    def _jit_bindings(self, name):
        """The jit kernels a name is bound to, when every binding of it in the file is one (`kernel = k`,
        `kernel, grid = k, g`, `kernel = k1 if c else k2`); [] otherwise."""
        if name in self.m_jitBindings:
            return self.m_jitBindings[name]
        found, bound = [], 0
        for n in ast.walk(self.tree):
            if not isinstance(n, ast.Assign):
                continue
            for t in n.targets:
                pairs = [(t, n.value)]
                if isinstance(t, ast.Tuple) and isinstance(n.value, ast.Tuple) and len(t.elts) == len(n.value.elts):
                    pairs = list(zip(t.elts, n.value.elts))
                for tt, v in pairs:
                    if not (isinstance(tt, ast.Name) and tt.id == name):
                        continue
                    vals = [v.body, v.orelse] if isinstance(v, ast.IfExp) else [v]
                    names = [x.id for x in vals if isinstance(x, ast.Name) and x.id in self.jit]
                    if len(names) != len(vals):
                        self.m_jitBindings[name] = []
                        return []
                    found += names
                    bound += 1
        self.m_jitBindings[name] = found if bound and bound == self.stores(name) else []  # no binding of another kind
        return self.m_jitBindings[name]

    def extension_call(self, call):
        """True when `call` calls a function of a module built by load_inline / load."""
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute):
            v = call.func.value
            if isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and not v.args:
                return v.func.id in self.builders  # `_get_ext().fn(...)`: a builder's module, called at once
            d = dotted(v)
            return d is not None and d in self.extensions
        return False

    def _is_load(self, node):
        return isinstance(node, ast.Call) and (self.qual(node.func) or "").startswith("torch.utils.cpp_extension.load")

    def _builders(self):
        """Functions of this file that return a module built by load_inline / load: `return
        load_inline(...)`, or return a name (or a dict entry) the function assigned one to."""
        out = set()
        for name, f in self.functions.items():
            built = set()
            for node in ast.walk(f):
                if isinstance(node, ast.Assign) and self._is_load(node.value):
                    for t in node.targets:
                        d = dotted(t.value if isinstance(t, ast.Subscript) else t)
                        if d:
                            built.add(d)
            for node in ast.walk(f):
                if isinstance(node, ast.Return) and node.value is not None:
                    v = node.value
                    d = dotted(v.value if isinstance(v, ast.Subscript) else v)
                    if self._is_load(v) or (d is not None and d in built):
                        out.add(name)
        return out

    def _find_extensions(self):
        names = set()
        builders = self.builders
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
                f = node.value.func
                if self._is_load(node.value) or (isinstance(f, ast.Name) and f.id in builders):
                    for t in node.targets:
                        d = dotted(t)
                        if d:
                            names.add(d)
        return names

    def cuda_sources(self):
        """[(text, first line)] of the strings that reach `load_inline(cuda_sources=...)`:
        literals in the call, or module-level names assigned a literal. A string elsewhere (a
        docstring, a comment-like constant) never counts."""
        out = []
        for node in ast.walk(self.tree):
            if not isinstance(node, ast.Call):
                continue
            q = self.qual(node.func) or ""
            if not q.startswith("torch.utils.cpp_extension.load_inline"):
                continue
            for kw in node.keywords:
                if kw.arg in ("cuda_sources", "cpp_sources"):
                    out.extend(self._strings(kw.value))
        return out

    def _strings(self, node, depth=0):
        """String literals a source expression is built from: a literal, a list or tuple of them,
        a name bound to one (module level, or assigned once anywhere), and `a + b` / `a % b`
        formatting of such parts (each part is returned on its own, with its line)."""
        if depth > 8:
            return []
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return [(node.value, node.lineno)]
        if isinstance(node, (ast.List, ast.Tuple)):
            res = []
            for e in node.elts:
                res.extend(self._strings(e, depth + 1))
            return res
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mod)):
            return self._strings(node.left, depth + 1) + self._strings(node.right, depth + 1)
        if isinstance(node, ast.Name):
            value = self.constants.get(node.id, self.assigned_once.get(node.id))
            if value is not None:
                return self._strings(value, depth + 1)
        return []

    def model_new(self):
        return self.classes.get("ModelNew")

    def method(self, cls, name, _depth=0):
        """The function `name` of class `cls`: its def, or a method of the class bound to that name in the class body
        (`forward = _run`) or in __init__ (`self.forward = self._run`: blind red team 23 hid forward from every
        detector reading it that way, and nn.Module calls it all the same)."""
        if cls is None:
            return None
        for node in cls.body:
            if isinstance(node, ast.FunctionDef) and node.name == name:
                return node
        if _depth > 2:
            return None
        init = next((n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None)
        for node in list(cls.body) + (list(ast.walk(init)) if init is not None else []):
            if not isinstance(node, ast.Assign) or not any(
                    (isinstance(t, ast.Name) and t.id == name and node in cls.body) or dotted(t) == "self." + name
                    for t in node.targets):
                continue
            v = node.value
            other = v.id if isinstance(v, ast.Name) else v.attr if isinstance(v, ast.Attribute) and isinstance(
                v.value, ast.Name) and v.value.id == "self" else None
            if other and other != name:
                got = self.method(cls, other, _depth + 1)
                if got is not None:
                    return got
        return None

    def callee(self, call, cls):
        """The function of this file a call reaches: `helper(...)`, `self.method(...)`."""
        f = call.func
        if isinstance(f, ast.Name) and f.id in self.functions and f.id not in self.jit:
            return self.functions[f.id]
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "self":
            m = self.method(cls, f.attr)
            if m is not None:
                return m
            # a module whose class is defined here: self.cell(...) -> Cell.forward
            init = self.method(cls, "__init__")
            if init is not None:
                for node in ast.walk(init):
                    if isinstance(node, ast.Assign) and any(dotted(t) == "self." + f.attr for t in node.targets):
                        if isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Name):
                            sub = self.classes.get(node.value.func.id)
                            fwd = self.method(sub, "forward")
                            if fwd is not None:
                                return fwd
        if isinstance(f, ast.Name) and f.id in self.classes:
            return None
        return None

    def reachable(self, start, cls, limit=12):
        """start plus every function of this file it calls, transitively (not jit kernels)."""
        seen, todo, order = set(), [start], []
        while todo and len(order) < limit:
            f = todo.pop(0)
            if f is None or id(f) in seen:
                continue
            seen.add(id(f))
            order.append(f)
            for node in ast.walk(f):
                if isinstance(node, ast.Call):
                    c = self.callee(node, cls)
                    if c is not None:
                        todo.append(c)
        return order

    def launches_in(self, node, cls, depth=0):
        """Number of kernel launches a statement or function performs per execution, ignoring
        loops (used to ask "does this launch?")."""
        count = 0
        for n in ast.walk(node):
            if isinstance(n, ast.Call):
                if self.launch_of(n) or self.extension_call(n):
                    count += 1
                elif depth < 4:
                    c = self.callee(n, cls)
                    if c is not None and c is not node:
                        count += self.launches_in(c, cls, depth + 1)
        return count


class Sym:
    """A size: a number when it can be computed, the task constants it comes from, its text."""

    def __init__(self, value=None, labels=frozenset(), text="?", shape=None):
        self.value = value
        self.labels = frozenset(labels)
        self.text = text
        self.shape = shape  # a list of Sym for a tensor

    def known(self):
        return self.value is not None

    def __repr__(self):
        return "Sym(%r, %s, %r)" % (self.value, sorted(self.labels), self.text)


class TaskInfo:
    """The facts of a KernelBench task file that detectors need."""

    def __init__(self, src):
        self.src = src
        self.constants = {}  # name -> Sym
        self.inputs = []  # Sym with shape per get_inputs() element
        self.init_inputs = []
        self.returns = "unknown"  # full_sequence | final_state | final_step | unknown
        self.return_text = ""
        self.fp32 = True
        self.recurrent = False  # the reference builds nn.GRU / nn.LSTM / nn.RNN
        self.scan = False  # the reference carries a state across a Python time loop (a linear or selective scan)
        self.forward_params = []
        if src.tree is None:
            return
        for node in src.tree.body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                name = node.targets[0].id
                s = self.eval(node.value)
                if s.known():
                    self.constants[name] = Sym(s.value, s.labels | {name}, name)
        gi = src.functions.get("get_inputs")
        if gi is not None:
            for node in ast.walk(gi):
                if isinstance(node, ast.Return) and isinstance(node.value, (ast.List, ast.Tuple)):
                    self.inputs = [self._tensor(e) for e in node.value.elts]
        gii = src.functions.get("get_init_inputs")
        if gii is not None:
            for node in ast.walk(gii):
                if isinstance(node, ast.Return) and isinstance(node.value, (ast.List, ast.Tuple)):
                    self.init_inputs = [self.eval(e) for e in node.value.elts]
        for node in ast.walk(src.tree):
            if isinstance(node, ast.Attribute) and node.attr in ("half", "bfloat16", "float16"):
                self.fp32 = False
        model = src.classes.get("Model")
        fwd = src.method(model, "forward")
        if fwd is not None:
            self.forward_params = [a.arg for a in fwd.args.args[1:]]
            self._classify_return(model, fwd)

    def eval(self, node):
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
            return Sym(node.value, (), repr(node.value))
        if isinstance(node, ast.Name) and node.id in self.constants:
            return self.constants[node.id]
        if isinstance(node, ast.BinOp):
            return arith(node.op, self.eval(node.left), self.eval(node.right), ast.unparse(node))
        return Sym(None, (), ast.unparse(node))

    def _tensor(self, node):
        dims = []
        if isinstance(node, ast.Call):
            args = node.args
            if len(args) == 1 and isinstance(args[0], (ast.Tuple, ast.List)):
                args = args[0].elts
            dims = [self.eval(a) for a in args]
        return Sym(None, (), ast.unparse(node), shape=dims)

    def label_of(self, role):
        """The task constant that plays a role, by KernelBench's naming convention (task files
        are trusted and follow it; candidates are never read this way)."""
        names = {"batch": ("batch_size", "batch", "B"),
                 "seq": ("seq_len", "sequence_length", "seq_length", "T"),
                 "hidden": ("hidden_size", "hidden", "H"),
                 "layers": ("num_layers",),
                 "state": ("d_state", "state_size", "ssm_state_size")}[role]
        for n in names:
            if n in self.constants:
                return n
        return None

    def _classify_return(self, model, fwd):
        src = self.src
        init = src.method(model, "__init__")
        recurrent = set()
        if init is not None:
            for node in ast.walk(init):
                if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
                    if (src.qual(node.value.func) or "") in RECURRENT_MODULES:
                        recurrent.update(dotted(t) for t in node.targets)
                        self.recurrent = True
        origin = {}  # name -> (index in the recurrent call's result, or "step")
        for node in ast.walk(fwd):
            if not isinstance(node, ast.Assign):
                continue
            v = node.value
            if isinstance(v, ast.Call) and dotted(v.func) in recurrent:
                t = node.targets[0]
                if isinstance(t, ast.Tuple):
                    for i, e in enumerate(t.elts):
                        if isinstance(e, ast.Name):
                            origin[e.id] = "full_sequence" if i == 0 else "final_state"
                        elif isinstance(e, ast.Tuple):
                            for sub in e.elts:
                                if isinstance(sub, ast.Name):
                                    origin[sub.id] = "final_state"
            elif isinstance(node.targets[0], ast.Name):
                kind = self._kind(v, origin)
                if kind:
                    origin[node.targets[0].id] = kind
        if not self.recurrent:
            self._classify_scan(fwd, origin)
            # a state-space task written in closed form (cumsum/einsum over chunks, no time loop),
            # like KernelBench's Mamba2 tasks: known by its state size and sequence length
            self.scan = self.scan or (self.label_of("state") is not None and self.label_of("seq") is not None)
        for node in ast.walk(fwd):
            if isinstance(node, ast.Return) and node.value is not None:
                self.return_text = ast.unparse(node.value)
                self.returns = self._kind(node.value, origin) or "unknown"

    def _classify_scan(self, fwd, origin):
        """A reference that is a recurrence without nn.GRU/LSTM: a `for t in range(...)` loop in
        forward that reads a per-step slice of a tensor (`delta[:, t]`) and carries a state from
        one step to the next (`h = decay * h + ...`). The carried state is the final state; lists
        appended to, or tensors written at the step index, in the loop are the sequence."""
        params = [a.arg for a in fwd.args.args]
        for loop in ast.walk(fwd):
            if not isinstance(loop, ast.For) or not is_range_call(self.src, loop.iter):
                continue
            var = names_in(loop.target)
            per_step = any(isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and names_in(n.slice) & var
                           for st in loop.body for n in ast.walk(st))
            carried, _ = carried_names(params, fwd, loop)
            if not per_step or not carried:
                continue
            self.scan = True
            for name in carried:
                origin[name] = "final_state"
            for st in loop.body:
                for n in ast.walk(st):
                    if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "append" \
                            and isinstance(n.func.value, ast.Name):
                        origin[n.func.value.id] = "full_sequence"
                    elif isinstance(n, (ast.Assign, ast.AugAssign)):
                        for t in (n.targets if isinstance(n, ast.Assign) else [n.target]):
                            if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and names_in(t.slice) & var:
                                origin[t.value.id] = "full_sequence"
            for node in ast.walk(fwd):  # y = torch.stack(ys, 1) after the loop
                if isinstance(node, ast.Assign) and node.lineno > loop.end_lineno and \
                        isinstance(node.targets[0], ast.Name):
                    kind = self._kind(node.value, origin)
                    if kind:
                        origin[node.targets[0].id] = kind
            return

    def _kind(self, v, origin):
        if isinstance(v, ast.Name):
            return origin.get(v.id)
        if isinstance(v, ast.Subscript):
            if has_last_index(v):
                return "final_step"
            base = self._kind(v.value, origin)
            if base == "final_state":
                return "final_state"
            return base
        if isinstance(v, ast.Call):
            # a head applied to something: fc(out[:, -1, :]) keeps the kind of its argument
            for a in v.args:
                k = self._kind(a, origin)
                if k:
                    return k
        return None


def has_last_index(sub):
    """x[:, -1, :], x[-1], x[:, -1]"""
    idx = sub.slice
    elts = idx.elts if isinstance(idx, ast.Tuple) else [idx]
    for e in elts:
        if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub) and isinstance(e.operand, ast.Constant) \
                and e.operand.value == 1:
            return True
    return False


def arith(op, a, b, text):
    labels = a.labels | b.labels
    if a.value is None or b.value is None:
        return Sym(None, labels, text)
    try:
        if isinstance(op, ast.Add):
            v = a.value + b.value
        elif isinstance(op, ast.Sub):
            v = a.value - b.value
        elif isinstance(op, ast.Mult):
            v = a.value * b.value
        elif isinstance(op, ast.FloorDiv):
            v = a.value // b.value
        elif isinstance(op, ast.Div):
            v = a.value / b.value
        elif isinstance(op, ast.Mod):
            v = a.value % b.value
        elif isinstance(op, ast.Pow):
            v = a.value ** b.value
        else:
            return Sym(None, labels, text)
    except (ZeroDivisionError, OverflowError):
        return Sym(None, labels, text)
    return Sym(v, labels, text)


class Resolver:
    """Evaluates size expressions inside the candidate's ModelNew: forward parameters are the
    task's inputs, constructor parameters the task's init inputs, `self.x` what __init__ stored."""

    def __init__(self, src, task):
        self.src = src
        self.task = task
        self.cls = src.model_new() if src.tree is not None else None
        self.init_env = {}
        init = src.method(self.cls, "__init__")
        if init is not None:
            params = [a.arg for a in init.args.args[1:]]
            defaults = init.args.defaults
            for i, p in enumerate(params):
                if i < len(task.init_inputs):
                    self.init_env[p] = task.init_inputs[i]
                else:
                    d_index = i - (len(params) - len(defaults))
                    if 0 <= d_index < len(defaults):
                        self.init_env[p] = task.eval(defaults[d_index])
        self.self_attrs = {}
        if init is not None:
            for node in ast.walk(init):
                if isinstance(node, ast.Assign):
                    for t in node.targets:
                        d = dotted(t)
                        if d and d.startswith("self."):
                            self.self_attrs[d[5:]] = node.value

    def forward_env(self, fwd):
        env = {}
        params = [a.arg for a in fwd.args.args[1:]]
        for i, p in enumerate(params):
            if i < len(self.task.inputs):
                env[p] = self.task.inputs[i]
        return env

    def resolve(self, node, func, env, depth=0):
        """Sym for an expression evaluated in `func` with parameter bindings `env`."""
        if depth > 12 or node is None:
            return Sym(None, (), "?")
        text = ast.unparse(node)
        r = lambda n: self.resolve(n, func, env, depth + 1)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
            return Sym(node.value, (), text)
        if isinstance(node, ast.Name):
            if node.id in env:
                return env[node.id]
            val = self._local(node.id, func, env, depth)
            if val is not None:
                return val
            if node.id in self.src.constants:
                s = self.resolve(self.src.constants[node.id], None, {}, depth + 1)
                return Sym(s.value, s.labels, node.id, s.shape)
            if node.id in self.task.constants:
                return self.task.constants[node.id]
            return Sym(None, (), text)
        if isinstance(node, ast.Attribute):
            if isinstance(node.value, ast.Name) and node.value.id == "self" and node.attr in self.self_attrs:
                init = self.src.method(self.cls, "__init__")
                s = self.resolve(self.self_attrs[node.attr], init, self.init_env, depth + 1)
                return Sym(s.value, s.labels, text, s.shape)
            if node.attr == "shape":
                return r(node.value)
            return Sym(None, (), text)
        if isinstance(node, ast.Subscript):
            base = r(node.value)
            idx = r(node.slice)
            if base.shape is not None and idx.known():
                i = int(idx.value)
                if -len(base.shape) <= i < len(base.shape):
                    s = base.shape[i]
                    return Sym(s.value, s.labels, text)
            return Sym(None, base.labels, text)
        if isinstance(node, ast.BinOp):
            return arith(node.op, r(node.left), r(node.right), text)
        if isinstance(node, (ast.Tuple, ast.List)):
            return Sym(None, (), text, shape=[r(e) for e in node.elts])
        if isinstance(node, ast.Call):
            f = node.func
            q = self.src.qual(f) or (f.id if isinstance(f, ast.Name) else "")
            if isinstance(f, ast.Attribute) and f.attr == "size":
                base = r(f.value)
                if node.args:
                    if base.shape is not None:
                        return r(ast.Subscript(value=f.value, slice=node.args[0], ctx=ast.Load()))
                    return Sym(None, base.labels, text)
                return base
            if q in ("triton.cdiv", "cdiv") and len(node.args) == 2:
                a, b = r(node.args[0]), r(node.args[1])
                if a.known() and b.known() and b.value:
                    return Sym(math.ceil(a.value / b.value), a.labels | b.labels, text)
                return Sym(None, a.labels | b.labels, text)
            if q in ("max", "min") and node.args:
                vals = [r(a) for a in node.args]
                labels = frozenset().union(*[v.labels for v in vals])
                if all(v.known() for v in vals):
                    fn = max if q == "max" else min
                    return Sym(fn(v.value for v in vals), labels, text)
                # max(1, B): the informative operand decides
                known = [v for v in vals if v.labels]
                return Sym(None, labels, text) if not known else Sym(known[0].value, labels, text)
            if q == "int" and node.args:
                s = r(node.args[0])
                return Sym(int(s.value) if s.known() else None, s.labels, text)
            if q.startswith("torch.") and q.split(".")[-1] in ("empty", "zeros", "ones", "randn", "rand", "full",
                                                                 "empty_like", "zeros_like"):
                args = node.args
                if len(args) >= 1 and isinstance(args[0], (ast.Tuple, ast.List)):
                    args = args[0].elts
                if q.endswith("_like") and args:
                    return r(args[0])
                if q.endswith("full"):
                    args = args[:1] if args and isinstance(node.args[0], (ast.Tuple, ast.List)) else args[:-1]
                return Sym(None, (), text, shape=[r(a) for a in args])
            if isinstance(f, ast.Attribute) and f.attr in ("new_empty", "new_zeros") and node.args:
                args = node.args
                if isinstance(args[0], (ast.Tuple, ast.List)):
                    args = args[0].elts
                return Sym(None, (), text, shape=[r(a) for a in args])
            if isinstance(f, ast.Attribute) and f.attr in ("contiguous", "clone", "float", "to", "detach"):
                return r(f.value)
        return Sym(None, (), text)

    def _branch_of(self, func, node, env, depth):
        """For an assignment inside `if test: ... else: ...` of `func`: (the If, True for its body
        or False for its else branch, the test's static value or None), innermost If first; []
        elsewhere."""
        out = []
        for cand in ast.walk(func):
            if not isinstance(cand, ast.If):
                continue
            for side, stmts in ((True, cand.body), (False, cand.orelse)):
                if any(node is n for st in stmts for n in ast.walk(st)):
                    out.append((cand, side, self._truth(cand.test, func, env, depth)))
        return sorted(out, key=lambda x: -x[0].lineno)

    def _truth(self, test, func, env, depth):
        """An `if` test's value when it is static (a literal, a module constant, a size that
        resolves), else None."""
        node = test
        if isinstance(node, ast.Name) and node.id not in env and node.id in self.src.constants:
            node = self.src.constants[node.id]
        if isinstance(node, ast.Constant):
            return bool(node.value)
        s = self.resolve(test, func, env, depth + 1)
        return bool(s.value) if s.known() else None

    def _local(self, name, func, env, depth):
        """A local's value: the first assignment (in source order) that resolves to a number or a
        shape; loop-carried rebinding (`inp = out`) keeps the sizes of the first one. Assignments
        in a branch whose `if` test resolves to the other side are skipped; when the two sides of
        an unresolved `if` both assign the name, the value is unknown (`B, T = x.shape` under
        `if batch_first:` and `T, B = x.shape` under `else:` must not pick one by source order)."""
        if func is None:
            return None
        found = []
        for node in ast.walk(func):
            if not isinstance(node, ast.Assign):
                continue
            for t in node.targets:
                if isinstance(t, ast.Name) and t.id == name:
                    found.append((node.lineno, "plain", node.value, None, node))
                elif isinstance(t, (ast.Tuple, ast.List)):
                    for i, e in enumerate(t.elts):
                        if isinstance(e, ast.Name) and e.id == name:
                            found.append((node.lineno, "unpack", node.value, i, node))
        if not found:
            return None
        if len(found) > 1:
            live, sides = [], {}
            for item in found:
                dead = False
                for if_node, side, truth in self._branch_of(func, item[4], env, depth):
                    if truth is not None:
                        dead = dead or truth != side
                    else:
                        sides.setdefault(id(if_node), set()).add(side)
                if not dead:
                    live.append(item)
            if any(len(v) == 2 for v in sides.values()):
                return Sym(None, (), name)
            found = live or found
        found.sort(key=lambda x: x[0])
        last = None
        for _, kind, value, i, _node in found:
            s = self.resolve(value, func, env, depth + 1)
            if kind == "unpack":
                if s.shape is not None and i < len(s.shape):
                    r = s.shape[i]
                elif isinstance(value, (ast.Tuple, ast.List)) and i < len(value.elts):
                    r = self.resolve(value.elts[i], func, env, depth + 1)
                else:
                    r = Sym(None, (), name)
            else:
                r = Sym(s.value, s.labels, name, s.shape)
            if r.known() or r.shape is not None:
                return r
            last = last or r
        return last
