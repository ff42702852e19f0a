# SPDX-License-Identifier: MIT
"""Detectors that read kernels: persistent_kernel, grid_parallelism, triton_lint."""
import ast

from . import cuda
from .source import carried_names, dotted, is_range_call, loop_bound, moving_names, names_in, unit_step, Sym
from .verdicts import cannot_tell, evidence, no, verdict

# ---------------------------------------------------------------------------------------------
# Triton kernel structure


def params_of(f):
    return [a.arg for a in f.args.args]


def constexpr_params(src, f):
    out = set()
    for a in f.args.args:
        if a.annotation is not None:
            q = src.qual(a.annotation) or dotted(a.annotation) or ""
            if q.endswith("constexpr"):
                out.add(a.arg)
    return out


def pointer_base(expr, f, depth=0):
    """The pointer an address expression starts from: the leftmost operand of its sum, followed
    through a local assignment (`base = h_ptr + b * stride`)."""
    while isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Add, ast.Sub)):
        expr = expr.left
    if isinstance(expr, ast.Name):
        if expr.id in params_of(f) or depth > 3:
            return expr.id
        for node in ast.walk(f):
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == expr.id for t in node.targets):
                return pointer_base(node.value, f, depth + 1)
        return expr.id
    return None


def tl_calls(src, node, names):
    """Calls of triton.language.<name> in a subtree, in source order."""
    out = []
    for n in ast.walk(node):
        if isinstance(n, ast.Call):
            q = src.qual(n.func) or ""
            if q.startswith("triton.language.") and q.split(".")[-1] in names:
                out.append(n)
    out.sort(key=lambda c: (c.lineno, c.col_offset))
    return out


class TimeLoop:
    def __init__(self, kernel, loop, bound, carried, memory, scan=False, step_stores=()):
        self.kernel = kernel
        self.loop = loop
        self.bound = bound
        self.carried = carried
        self.memory = memory  # [(pointer, load line, store line)]
        self.scan = scan  # a recurrence without a reused weight matrix (linear or selective scan)
        self.step_stores = list(step_stores)  # tl.store calls that write every step at a moving address


def analyse_loop(src, f, loop, scan_task=False):
    """A TimeLoop when `loop` carries state from one iteration to the next; None otherwise.

    State is carried in a variable defined before the loop, read in the body before it is
    written and not merely accumulated (`acc += tl.dot(...)` is a reduction, `h = z * h + ...`
    is state), or through memory: a pointer loaded from before it is stored to in the same
    iteration (a state buffer, double-buffered or not).

    Two shapes of time loop: a recurrence through a weight matrix (a reduction per step, nested
    loop, tl.dot or tl.sum, over data every step reuses: GRU/LSTM), and a scan without one (a
    linear recurrence or an SSM selective scan, h = a_t * h + b_t * x_t): a unit-step loop whose
    carried state is fed by loads that move with the step, and that either stores every step or
    belongs to a task that is itself a scan. Flash attention's streaming loop steps by blocks
    and stores once, so it is neither."""
    if isinstance(loop, ast.For) and not is_range_call(src, loop.iter):
        return None
    carried, stored = carried_names(params_of(f), f, loop)
    body = ast.Module(body=loop.body, type_ignores=[])
    memory = []
    loads = [(c.lineno, pointer_base(c.args[0], f)) for c in tl_calls(src, body, ("load",)) if c.args]
    stores = [(c.lineno, pointer_base(c.args[0], f)) for c in tl_calls(src, body, ("store",)) if c.args]
    for sl, sp in stores:
        for ll, lp in loads:
            if sp and lp == sp and ll <= sl:
                memory.append((sp, ll, sl))
                break
    moving = moving_names(loop, stored)
    state_ptrs = {p for p, _, _ in memory}
    step_stores = [c for st in loop.body if not isinstance(st, ast.If) for c in tl_calls(src, st, ("store",))
                   if c.args and names_in(c.args[0]) & moving and pointer_base(c.args[0], f) not in state_ptrs]
    text, _, _ = loop_bound(loop)
    inner = any(isinstance(n, (ast.For, ast.While)) for b in loop.body for n in ast.walk(b)) or \
        bool(tl_calls(src, body, ("dot", "sum")))
    if (carried or memory) and inner and _reuses_invariant_data(src, loop, moving):
        return TimeLoop(f.name, loop, text, carried, memory, False, step_stores)
    fed = any(c.args and names_in(c.args[0]) & moving for c in tl_calls(src, body, ("load",)))
    if carried and fed and unit_step(src, loop) and (step_stores or scan_task):
        return TimeLoop(f.name, loop, text, carried, memory, True, step_stores)
    return None


def _reuses_invariant_data(src, loop, moving):
    """True when some load in the loop does not move with the loop variable: every step reuses
    the same data (a recurrent weight matrix). This separates a time loop (h_t = f(h_t-1, W))
    from a streaming reduction that carries running state, like flash attention's loop over
    key/value blocks, where every load moves with the loop."""
    for c in tl_calls(src, ast.Module(body=loop.body, type_ignores=[]), ("load",)):
        if c.args and not names_in(c.args[0]) & moving:
            return True
    return False


def time_loops(src, f, scan_task=False):
    """The outermost time loops of a jit function."""
    found = []

    def visit(stmts):
        for st in stmts:
            if isinstance(st, (ast.For, ast.While)):
                tl = analyse_loop(src, f, st, scan_task)
                if tl:
                    found.append(tl)
                    continue
                visit(st.body)
            elif isinstance(st, (ast.If, ast.With)):
                visit(st.body)
                visit(getattr(st, "orelse", []))

    visit(f.body)
    return found


def all_time_loops(src, task=None):
    """Time loops of every jit function; `task` tells whether the task itself is a scan."""
    scan_task = bool(task is not None and task.scan)
    return [tl for f in src.jit.values() for tl in time_loops(src, f, scan_task)]


def persistent_kernel(src, task, ctx):
    ev = []
    for tl in all_time_loops(src, task):
        state = []
        if tl.carried:
            state.append("state carried in " + ", ".join("`%s`" % c for c in tl.carried))
        for p, ll, sl in tl.memory:
            state.append("state carried through memory `%s` (loaded line %d, stored line %d)" % (p, ll, sl))
        if tl.scan:
            state.append("a scan: no weight matrix is reused per step")
        ev.append(evidence(tl.loop.lineno, tl.loop.end_lineno,
                           "time loop over `%s` inside @triton.jit %s, lines %d-%d; %s"
                           % (tl.bound, tl.kernel, tl.loop.lineno, tl.loop.end_lineno, "; ".join(state))))
    for text, line in src.cuda_sources():
        for loop in cuda.time_loops(text, task.scan):
            ev.append(evidence(line + loop.first, line + loop.last,
                               "time loop `for (%s)` inside __global__ %s; state carried in %s%s"
                               % (loop.header, loop.kernel, ", ".join("`%s`" % s for s in loop.state),
                                  "; a scan: no weight matrix is reused per step" if loop.scan else "")))
    if ev:
        return verdict("persistent_kernel", "yes", "info",
                       "persistent kernel: the time loop runs inside the kernel (%d loop%s)"
                       % (len(ev), "s" if len(ev) > 1 else ""), ev,
                       "Keep the time loop inside the kernel. Tune only what keeps it intact: the grid must "
                       "cover batch tiles x hidden tiles, and block sizes must not spill registers.")
    if not src.jit and not src.cuda_sources():
        return no("persistent_kernel", "no Triton or CUDA kernel in the file")
    return no("persistent_kernel", "no kernel carries state across a time loop")


# ---------------------------------------------------------------------------------------------
# Launch sites and grids


def launch_sites(src, ctx):
    """[(kernel, grid node, call, func, env)] for launches reachable from ModelNew.forward."""
    out = []
    for f, env in ctx.contexts:
        for node in ast.walk(f):
            if isinstance(node, ast.Call):
                lo = src.launch_of(node)
                if lo:
                    out.append((lo[0], lo[1], node, f, env))
    return out


def grid_dims(src, grid, f):
    """The expressions of a grid's dimensions: a tuple, a lambda, a local def or name."""
    if isinstance(grid, (ast.Tuple, ast.List)):
        return list(grid.elts)
    if isinstance(grid, ast.Lambda):
        return grid_dims(src, grid.body, f)
    if isinstance(grid, ast.Name):
        for node in ast.walk(f):
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == grid.id for t in node.targets):
                return grid_dims(src, node.value, f)
            if isinstance(node, ast.FunctionDef) and node.name == grid.id:
                for r in ast.walk(node):
                    if isinstance(r, ast.Return) and r.value is not None:
                        return grid_dims(src, r.value, f)
    return None


def grid_meta_names(src, grid, f):
    """The parameter of a grid lambda / grid function (`meta`, `META`): its entries are block sizes."""
    if isinstance(grid, ast.Lambda):
        return {a.arg for a in grid.args.args}
    if isinstance(grid, ast.Name):
        for node in ast.walk(f):
            if isinstance(node, ast.FunctionDef) and node.name == grid.id:
                return {a.arg for a in node.args.args}
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Lambda) and \
                    any(isinstance(t, ast.Name) and t.id == grid.id for t in node.targets):
                return {a.arg for a in node.value.args.args}
    return set()


def _atoms(node, meta):
    """The sizes a grid expression is made of: names, `x.size(i)`, `x.shape[i]`; not the
    functions applied to them (triton.cdiv, max) nor the meta-parameters' block sizes."""
    if isinstance(node, ast.Name):
        return [] if node.id in meta else [node]
    if isinstance(node, ast.Call):
        if isinstance(node.func, ast.Attribute) and node.func.attr == "size":
            return [node]
        out = []
        for a in node.args:
            out += _atoms(a, meta)
        return out
    if isinstance(node, ast.Subscript):
        if isinstance(node.value, ast.Name) and node.value.id in meta:
            return []
        return [node]
    if isinstance(node, ast.Attribute):
        return [node]
    out = []
    for child in ast.iter_child_nodes(node):
        out += _atoms(child, meta)
    return out


def dim_kind(src, ctx, dim, f, env, batch, meta):
    """What one grid dimension spans: "batch" (only the batch and constants), "const", "wide"
    (some factor is a task size other than the batch), or "unknown"."""
    kinds = set()
    for atom in _atoms(dim, set(meta)):
        s = ctx.resolver.resolve(atom, f, env)
        if s.labels and batch is not None and s.labels <= {batch}:
            kinds.add("batch")
        elif s.labels:
            kinds.add("wide")
        elif s.known():
            kinds.add("const")
        else:
            kinds.add("unknown")
    if "wide" in kinds:
        return "wide"
    if "unknown" in kinds:
        return "unknown"
    if "batch" in kinds:
        return "batch"
    return "const"


def kernel_arg_syms(src, ctx, kernel):
    """Kernel parameter -> Sym from the first launch site of that kernel."""
    for name, grid, call, f, env in launch_sites(src, ctx):
        if name != kernel:
            continue
        params = params_of(src.jit[kernel])
        res = {}
        for p, a in zip(params, call.args):
            res[p] = ctx.resolver.resolve(a, f, env)
        for kw in call.keywords:
            if kw.arg in params:
                res[kw.arg] = ctx.resolver.resolve(kw.value, f, env)
        return res
    return {}


def vector_names(src, f):
    """Names holding Triton blocks (derived from tl.arange, tl.zeros, tl.full)."""
    vec = set()
    changed = True
    while changed:
        changed = False
        for node in ast.walk(f):
            if isinstance(node, (ast.Assign, ast.AugAssign)):
                value = node.value
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                is_vec = bool(tl_calls(src, value, ("arange", "zeros", "full"))) or bool(names_in(value) & vec)
                if is_vec:
                    for t in targets:
                        for n in names_in(t):
                            if n not in vec:
                                vec.add(n)
                                changed = True
    return vec


def serial_scalar_loops(src, f):
    """Unit-step loops doing scalar-vector products: a scalar tl.load indexed by the loop
    variable, no tl.dot (the seeds' `for k in range(HIDDEN_SIZE)`)."""
    vec = vector_names(src, f)
    out = []
    for node in ast.walk(f):
        if not isinstance(node, ast.For) or not is_range_call(src, node.iter):
            continue
        _, bound, step = loop_bound(node)
        if step is not None and not (isinstance(step, ast.Constant) and step.value == 1):
            continue
        var = names_in(node.target)
        body = ast.Module(body=node.body, type_ignores=[])
        if tl_calls(src, body, ("dot",)):
            continue
        if any(isinstance(n, (ast.For, ast.While)) for b in node.body for n in ast.walk(b)):
            continue
        for load in tl_calls(src, body, ("load",)):
            if not load.args:
                continue
            names = names_in(load.args[0])
            if names & var and not names & vec:
                out.append((node, bound))
                break
    return out


def grid_parallelism(src, task, ctx):
    sites = launch_sites(src, ctx)
    if not sites:
        if src.cuda_sources():
            return cannot_tell("grid_parallelism", "CUDA launch configurations are not analysed")
        return cannot_tell("grid_parallelism", "no Triton launch reachable from ModelNew.forward")
    batch = task.label_of("batch")
    hidden = task.label_of("hidden")
    persistent = {tl.kernel for tl in all_time_loops(src, task)}
    bad, ev, unsure, unresolved = [], [], [], 0
    seen = set()
    for kernel, grid, call, f, env in sites:
        if kernel in seen:
            continue
        seen.add(kernel)
        dims = grid_dims(src, grid, f)
        if dims is None:
            unresolved += 1
            continue
        meta = grid_meta_names(src, grid, f)
        syms = [ctx.resolver.resolve(d, f, env) for d in dims]
        programs = 1
        for s in syms:
            programs = programs * s.value if (programs is not None and s.known()) else None
        est = ("%d programs on %d SMs" % (programs, ctx.sm_count)) if programs is not None else \
            "program count unknown (%s)" % ", ".join(s.text for s in syms)
        kinds = [dim_kind(src, ctx, d, f, env, batch, meta) for d in dims]
        batch_only = "batch" in kinds and all(k in ("batch", "const") for k in kinds)
        text = "launch of %s with grid (%s%s): %s" % (kernel, ", ".join(ast.unparse(d) for d in dims),
                                                     "," if len(dims) == 1 else "", est)
        if batch_only:
            bad.append("grid covers the batch only")
            ev.append(evidence(call.lineno, call.end_lineno, text + "; the grid covers the batch only (%s)" % batch))
        elif len(dims) == 1 and kernel in persistent and kinds[0] != "wide":
            unsure.append(evidence(call.lineno, call.end_lineno, text + "; one grid dimension for a persistent "
                                   "kernel, and it could not be shown to span hidden tiles"))
        else:
            ev.append(evidence(call.lineno, call.end_lineno, text))
        args = kernel_arg_syms(src, ctx, kernel)
        for loop, bound in serial_scalar_loops(src, src.jit[kernel]):
            s = args.get(bound.id) if isinstance(bound, ast.Name) and bound.id in args else \
                ctx.resolver.resolve(bound, None, {}) if bound is not None else Sym()
            size = (" = %s" % int(s.value)) if s.known() else ""
            over = " (the hidden dimension)" if hidden and hidden in s.labels else ""
            bad.append("serial scalar loop")
            ev.append(evidence(loop.lineno, loop.end_lineno,
                               "serial loop `for %s in range(%s)`%s%s in %s: scalar loads times vectors, one "
                               "element per iteration" % (ast.unparse(loop.target), ast.unparse(bound) if bound else "?",
                                                          size, over, kernel)))
    if bad:
        return verdict("grid_parallelism", "yes", "warning",
                       "poor parallelism: " + "; ".join(sorted(set(bad))), ev,
                       "Launch a 2-D grid over batch tiles x hidden tiles, e.g. grid = (triton.cdiv(B, BLOCK_B), "
                       "triton.cdiv(H, BLOCK_H)); each program owns one (batch tile, hidden tile) and computes its "
                       "recurrent product with tl.dot over K tiles instead of a serial scalar loop over the hidden "
                       "dimension. Aim for at least as many programs as the GPU has SMs (%d)." % ctx.sm_count)
    if unsure:
        return verdict("grid_parallelism", "cannot_tell", "warning",
                       "a persistent kernel runs on a one-dimensional grid of unknown extent", unsure + ev,
                       "Make sure the grid covers batch tiles x hidden tiles and gives at least one program per SM "
                       "(%d); a grid over the batch alone leaves most SMs idle." % ctx.sm_count)
    if unresolved == len(seen):
        return cannot_tell("grid_parallelism", "launch grids could not be resolved", ev)
    return no("grid_parallelism", "grids cover more than the batch", ev)


# ---------------------------------------------------------------------------------------------
# Triton lint

# Attributes of triton.language in Triton 3.x: dir(triton.language) of Triton 3.6.0 (read on the H100
# machine) plus a few older 3.x names.
TL_3X = set("""
PropagateNan add bitonic_merge constexpr_type load_tensor_descriptor mul reduce_or slice
store_tensor_descriptor str_to_ty sub target_info tensor_descriptor_type
abs advance arange argmax argmin associative_scan assume atomic_add atomic_and atomic_cas atomic_max
atomic_min atomic_or atomic_xchg atomic_xor bfloat16 block_type broadcast broadcast_to cast cat cdiv ceil
clamp condition const constexpr cos cumprod cumsum debug_barrier device_assert device_print div_rn dot
dot_scaled dtype erf exp exp2 expand_dims extra fdiv flip float16 float32 float64 float8e4b15 float8e4nv
float8e4b8 float8e5 float8e5b16 floor fma full gather histogram inline_asm_elementwise int1 int16 int32
int64 int8 interleave join load log log2 make_block_ptr make_tensor_descriptor map_elementwise math max
max_constancy max_contiguous maximum min minimum multiple_of num_programs pair_uniform_to_normal permute
philox philox_impl pi32_t pointer_type program_id rand rand4x randint randint4x randn randn4x range ravel
reduce reshape rsqrt sigmoid sin softmax sort split sqrt sqrt_rn static_assert static_print static_range
store sum swizzle2d tensor tensor_descriptor topk trans tuple tuple_type uint16 uint32 uint64 uint8
uint_to_uniform_float umulhi view void where xor_sum zeros zeros_like core standard semantic random
float8e4b8 int_ TRITON_MAX_TENSOR_NUMEL
""".split())

MISSING = {
    "tanh": "tl.tanh does not exist in Triton 3.x (AttributeError at compile time): use "
            "triton.language.extra.cuda.libdevice.tanh(x), or 2 * tl.sigmoid(2 * x) - 1",
    "libdevice": "tl.libdevice was removed: use triton.language.extra.cuda.libdevice",
    "pow": "tl.pow does not exist: use triton.language.extra.cuda.libdevice.pow",
    "relu": "tl.relu does not exist: use tl.maximum(x, 0.0)",
    "gelu": "tl.gelu does not exist: write it from tl.erf or libdevice",
    "log1p": "tl.log1p does not exist: use triton.language.extra.cuda.libdevice.log1p",
}


def _constexpr_ok(src, f, node, cparams, local_const):
    for n in ast.walk(node):
        if isinstance(n, ast.Name):
            if n.id in cparams or n.id in local_const:
                continue
            if n.id in params_of(f):
                return False, n.id
            if n.id in src.constants:
                v = src.constants[n.id]
                if isinstance(v, ast.Constant) or (isinstance(v, ast.Call) and (src.qual(v.func) or "").endswith("constexpr")):
                    continue
            if isinstance(n.ctx, ast.Load):
                return False, n.id
    return True, None


def _local_constexprs(src, f, cparams):
    """Locals computed only from constexprs and literals (BLOCK2 = BLOCK * 2)."""
    out = set()
    for node in f.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            ok, _ = _constexpr_ok(src, f, node.value, cparams, out)
            if ok and not tl_calls(src, node.value, TL_3X):
                out.add(node.targets[0].id)
    return out


def triton_lint(src, task, ctx):
    ev, fixes = [], []
    version = ctx.triton_version
    major = None
    if version:
        try:
            major = int(version.split(".")[0])
        except ValueError:
            major = None
    for f in src.jit.values():
        cparams = constexpr_params(src, f)
        local_const = _local_constexprs(src, f, cparams)
        vec = vector_names(src, f)
        for node in ast.walk(f):
            if isinstance(node, ast.Attribute):
                q = src.qual(node) or ""
                if q.startswith("triton.language.") and q.count(".") == 2:
                    attr = q.split(".")[-1]
                    if attr in MISSING and (major is None or major >= 3 or attr != "libdevice"):
                        ev.append(evidence(node.lineno, node.end_lineno, "%s in %s: %s"
                                           % (ast.unparse(node), f.name, MISSING[attr])))
                        fixes.append(MISSING[attr])
                    elif attr not in TL_3X and (major is None or major >= 3):
                        ev.append(evidence(node.lineno, node.end_lineno,
                                           "%s in %s: not an attribute of triton.language 3.x" % (ast.unparse(node), f.name)))
                        fixes.append("use only functions that triton.language provides")
                elif q == "triton.language.math.tanh":
                    ev.append(evidence(node.lineno, node.end_lineno, "tl.math.tanh in %s: %s" % (f.name, MISSING["tanh"])))
                    fixes.append(MISSING["tanh"])
            if isinstance(node, ast.Call) and (src.qual(node.func) or "") == "triton.language.arange":
                for a in node.args[:2]:
                    ok, bad = _constexpr_ok(src, f, a, cparams, local_const)
                    if not ok:
                        ev.append(evidence(node.lineno, node.end_lineno,
                                           "%s in %s: `%s` is not a tl.constexpr (\"arange's arguments must be of type "
                                           "tl.constexpr\")" % (ast.unparse(node), f.name, bad)))
                        fixes.append("declare `%s: tl.constexpr` in the kernel signature (and pass a power of two), or "
                                     "use a constexpr block size with a mask" % bad)
                        break
            if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
                if isinstance(node.value, ast.Attribute) and node.value.attr == "shape":
                    continue
                idx = node.slice
                elts = idx.elts if isinstance(idx, ast.Tuple) else [idx]
                broadcast = all((isinstance(e, ast.Constant) and e.value is None) or
                                (isinstance(e, ast.Slice) and e.lower is None and e.upper is None and e.step is None)
                                for e in elts)
                if not broadcast and isinstance(node.value, ast.Name) and (node.value.id in vec or
                                                                          node.value.id in params_of(f)):
                    ev.append(evidence(node.lineno, node.end_lineno,
                                       "%s in %s: Python indexing of a Triton tensor (\"unsupported tensor index\")"
                                       % (ast.unparse(node), f.name)))
                    fixes.append("load the elements with tl.load(ptr + offsets, mask=...) instead of indexing a "
                                 "Triton tensor; use x[:, None] / x[None, :] only to broadcast")
            if isinstance(node, (ast.Break, ast.Continue)):
                ev.append(evidence(node.lineno, node.end_lineno,
                                   "`%s` in %s: Triton kernels do not support break/continue"
                                   % ("break" if isinstance(node, ast.Break) else "continue", f.name)))
                fixes.append("replace break/continue with a mask or a loop bound")
            if isinstance(node, ast.Call):
                q = src.qual(node.func) or ""
                if q.split(".")[0] in ("torch", "numpy", "math"):
                    ev.append(evidence(node.lineno, node.end_lineno,
                                       "%s in %s: host library call inside a Triton kernel" % (ast.unparse(node.func), f.name)))
                    fixes.append("use triton.language functions inside @triton.jit code")
    if ev:
        uniq = []
        for fx in fixes:
            if fx not in uniq:
                uniq.append(fx)
        return verdict("triton_lint", "yes", "error",
                       "%d Triton compile error%s expected before any GPU time" % (len(ev), "s" if len(ev) > 1 else ""),
                       ev, " ".join(uniq))
    if not src.jit:
        return no("triton_lint", "no @triton.jit function")
    return no("triton_lint", "no known Triton pitfalls in %d kernel%s" % (len(src.jit), "s" if len(src.jit) > 1 else ""))
