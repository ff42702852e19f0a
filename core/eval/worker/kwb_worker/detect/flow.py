# SPDX-License-Identifier: MIT
"""Detectors that follow ModelNew.forward: launch_bound_loop and output_requirement."""
import ast
import math

from . import cuda
from .kernels import all_time_loops
from .source import has_last_index, is_range_call
from .verdicts import cannot_tell, evidence, no, verdict

LAUNCH_BOUND_MIN = 64  # launches per forward above which per-launch overhead dominates small RNN steps


class Context:
    """Shared per-candidate state: the resolver, the SM count, and the functions reachable from
    ModelNew.forward with their parameters bound from the first call site."""

    def __init__(self, src, task, resolver, sm_count, triton_version):
        self.src = src
        self.task = task
        self.resolver = resolver
        self.sm_count = sm_count
        self.triton_version = triton_version
        self.contexts = []
        self.env_of = {}
        cls = resolver.cls
        fwd = src.method(cls, "forward")
        if fwd is None:
            return
        self.contexts.append((fwd, resolver.forward_env(fwd)))
        seen = {id(fwd)}
        i = 0
        while i < len(self.contexts) and len(self.contexts) < 16:
            f, env = self.contexts[i]
            i += 1
            for node in ast.walk(f):
                if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self" \
                        and isinstance(node.ctx, ast.Load):
                    # a method handed over rather than called (pool.submit(self._kernels, ...))
                    m = src.method(cls, node.attr)
                    if m is not None and id(m) not in seen:
                        seen.add(id(m))
                        self.contexts.append((m, {}))
                    continue
                if not isinstance(node, ast.Call):
                    continue
                c = src.callee(node, cls)
                if c is None or id(c) in seen:
                    continue
                seen.add(id(c))
                params = [a.arg for a in c.args.args]
                if params and params[0] == "self":
                    params = params[1:]
                cenv = {}
                for p, a in zip(params, node.args):
                    cenv[p] = resolver.resolve(a, f, env)
                for kw in node.keywords:
                    if kw.arg in params:
                        cenv[kw.arg] = resolver.resolve(kw.value, f, env)
                self.contexts.append((c, cenv))
        for f, env in self.contexts:
            self.env_of[id(f)] = env

    def forward(self):
        return self.contexts[0][0] if self.contexts else None


def _trip(ctx, loop, f, env):
    """(trips or None, text, labels) of a Python loop."""
    if isinstance(loop, ast.For) and isinstance(loop.iter, ast.Call) and is_range_call(ctx.src, loop.iter):
        args = loop.iter.args
        r = [ctx.resolver.resolve(a, f, env) for a in args]
        labels = frozenset().union(*[s.labels for s in r]) if r else frozenset()
        text = "range(%s)" % ", ".join(ast.unparse(a) for a in args)
        if all(s.known() for s in r) and r:
            start, stop, step = (0, r[0].value, 1) if len(r) == 1 else (r[0].value, r[1].value, r[2].value if len(r) > 2 else 1)
            return max(0, math.ceil((stop - start) / step)) if step else None, text, labels
        return None, text, labels
    if isinstance(loop, ast.For):
        # for layer in self.layers / reversed(range(...)) / enumerate(...)
        it = loop.iter
        while isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id in ("reversed", "enumerate") and it.args:
            it = it.args[0]
        if it is not loop.iter:
            fake = ast.For(target=loop.target, iter=it, body=loop.body, orelse=[])
            return _trip(ctx, fake, f, env)
        return None, ast.unparse(loop.iter), frozenset()
    return None, "while " + ast.unparse(loop.test), frozenset()


class Count:
    def __init__(self, value=0, formula="", loops=None, unknown=False):
        self.value = value
        self.formula = formula
        self.loops = loops or []  # [(loop node, trips, text, labels, function)]
        self.unknown = unknown
        self.direct = 0  # launches written directly in the statement (no call, no loop)


def _count_block(ctx, stmts, f, env, depth):
    total = Count()
    parts = []
    direct = 0  # plain launches of this block, written as one term ("2 kernel launches")
    for st in stmts:
        c = _count_stmt(ctx, st, f, env, depth)
        if c.value == 0 and not c.unknown:
            total.loops += c.loops
            continue
        total.value = None if (total.value is None or c.value is None) else total.value + c.value
        total.unknown = total.unknown or c.unknown
        total.loops += c.loops
        if c.direct:
            direct += c.direct
        else:
            parts.append(c.formula)
    if direct:
        parts.append("%d kernel launch%s" % (direct, "es" if direct > 1 else ""))
    total.formula = parts[0] if len(parts) == 1 else ("(" + " + ".join(parts) + ")" if parts else "")
    return total


def _count_stmt(ctx, st, f, env, depth):
    src = ctx.src
    if isinstance(st, (ast.For, ast.While)):
        inner = _count_block(ctx, st.body, f, env, depth)
        if inner.value == 0 and not inner.unknown:
            return inner
        trips, text, labels = _trip(ctx, st, f, env)
        loops = [(st, trips, text, labels, f)] + inner.loops
        if trips is None or inner.value is None:
            return Count(None, "%s x %s" % (text, inner.formula), loops, True)
        return Count(trips * inner.value, "%d (%s) x %s" % (trips, text, inner.formula), loops, inner.unknown)
    if isinstance(st, ast.If):
        a = _count_block(ctx, st.body, f, env, depth)
        b = _count_block(ctx, st.orelse, f, env, depth)
        best = a if (a.value or 0) >= (b.value or 0) else b
        best.loops = a.loops + b.loops
        return best
    if isinstance(st, (ast.With, ast.Try)):
        return _count_block(ctx, st.body, f, env, depth)
    if isinstance(st, (ast.FunctionDef, ast.ClassDef)):
        return Count()
    total = Count()
    launches = 0
    parts = []
    for n in ast.walk(st):
        if isinstance(n, ast.Call):
            if src.launch_of(n) or src.extension_call(n):
                launches += 1
            elif depth < 4:
                c = src.callee(n, ctx.resolver.cls)
                if c is not None:
                    sub = _count_block(ctx, c.body, c, ctx.env_of.get(id(c), {}), depth + 1)
                    if sub.value != 0 or sub.unknown:
                        total.value = None if (total.value is None or sub.value is None) else total.value + sub.value
                        total.unknown = total.unknown or sub.unknown
                        total.loops += sub.loops
                        parts.append(sub.formula)
    if launches:
        total.value = None if total.value is None else total.value + launches
        if not parts:
            total.direct = launches
        parts.append("%d kernel launch%s" % (launches, "es" if launches > 1 else ""))
    total.formula = " + ".join(parts)
    return total


def launch_bound_loop(src, task, ctx):
    fwd = ctx.forward()
    if fwd is None:
        return cannot_tell("launch_bound_loop", "no ModelNew.forward")
    c = _count_block(ctx, fwd.body, fwd, ctx.contexts[0][1], 0)
    if not c.loops:
        if c.value:
            return no("launch_bound_loop", "%d launch%s per forward, none inside a Python loop"
                      % (c.value, "es" if c.value != 1 else ""))
        return no("launch_bound_loop", "no kernel launch inside a Python loop")
    seq = task.label_of("seq")
    ev = []
    over_time = False
    for loop, trips, text, labels, f in c.loops:
        over_time = over_time or (seq is not None and seq in labels)
        ev.append(evidence(loop.lineno, loop.end_lineno, "Python loop `%s` in %s launches kernels%s"
                           % (text, f.name, (" (%d iterations)" % trips) if trips is not None else "")))
    total = "%s = %d launches per forward" % (c.formula, c.value) if c.value is not None else \
        "%s launches per forward (count unknown)" % c.formula
    ev.append(evidence(fwd.lineno, fwd.lineno, total))
    fix = ("Move the time loop into the kernel: precompute the input projections of all time steps as one GEMM, "
           "then launch one persistent kernel per layer (or one for all layers) that loops over time and keeps "
           "the hidden state on chip; launch overhead then stops scaling with the sequence length.")
    if over_time or (c.value is not None and c.value >= LAUNCH_BOUND_MIN):
        return verdict("launch_bound_loop", "yes", "warning",
                       "launch-bound: kernels launched from a Python loop, %s" % total.split(" = ")[-1], ev, fix)
    if c.value is None:
        return cannot_tell("launch_bound_loop", "kernels launched from a Python loop with an unknown trip count", ev)
    return no("launch_bound_loop", "%d launches per forward from a short Python loop" % c.value, ev)


# ---------------------------------------------------------------------------------------------


def _dims_match(ctx, shape):
    """True when an allocated shape is a sequence: a time dimension and a hidden-sized one (for a
    scan task, which has no hidden size, a time dimension)."""
    task = ctx.task
    seq, hidden = task.label_of("seq"), task.label_of("hidden")
    if task.scan and shape and seq is not None:
        return any(seq in s.labels for s in shape)  # a scan's sequence: any tensor with a time dimension
    if not shape or seq is None or hidden is None:
        return False
    hv = task.constants[hidden].value
    has_seq = any(seq in s.labels for s in shape)
    has_hidden = any(hidden in s.labels and s.known() and s.value in (hv, 2 * hv) for s in shape)
    return has_seq and has_hidden


def per_step_stores(src, task=None):
    """[(time loop, tl.store)] of unconditional stores inside a time loop at an address that moves
    with the loop (the state buffer itself, read back next step, is not an output)."""
    return [(tl, c) for tl in all_time_loops(src, task) for c in tl.step_stores]


def cuda_step_stores(src, task):
    """[(line, loop, statement)] of CUDA statements that write every step of a time loop."""
    out = []
    for text, line in src.cuda_sources():
        for loop in cuda.time_loops(text, task.scan):
            for off, stmt in loop.stores:
                out.append((line + off, loop, stmt))
    return out


def _candidate_return(ctx):
    fwd = ctx.forward()
    if fwd is None:
        return None, None
    env = ctx.contexts[0][1]
    for node in ast.walk(fwd):
        if isinstance(node, ast.Return) and node.value is not None:
            v = node.value
            if isinstance(v, ast.Subscript) and has_last_index(v):
                return "final_step", node
            s = ctx.resolver.resolve(v, fwd, env)
            if s.shape:
                if _dims_match(ctx, s.shape):
                    return "full_sequence", node
                layers = ctx.task.label_of("layers")
                seq = ctx.task.label_of("seq")
                if layers and any(layers in d.labels for d in s.shape) and not any(seq in d.labels for d in s.shape):
                    return "final_state", node
            return None, node
    return None, None


def output_requirement(src, task, ctx):
    need = task.returns
    if not task.recurrent and not task.scan:
        return no("output_requirement", "the task has no recurrent layer or scan: no sequence/final-state choice")
    if need == "unknown":
        return cannot_tell("output_requirement", "the task's forward return could not be classified")
    final = need in ("final_state", "final_step")
    requirement = ("The task returns only the final state (`return %s`): compute the sequence only where a "
                   "later layer consumes it, keep the last layer's state on chip and write only the final "
                   "state; do not materialise the [seq_len, batch, hidden] output." % task.return_text) if final else \
        ("The task returns the whole output sequence (`return %s`): the kernel must write h_t for every time "
         "step of the last layer." % task.return_text)
    got, ret = _candidate_return(ctx)
    ev = [evidence(0, 0, "task forward returns `%s` (%s)" % (task.return_text, need.replace("_", " ")))]
    if ret is not None:
        ev.append(evidence(ret.lineno, ret.end_lineno, "candidate returns `%s`%s"
                           % (ast.unparse(ret.value), " (%s)" % got.replace("_", " ") if got else "")))
    if final and got == "full_sequence":
        return verdict("output_requirement", "yes", "error",
                       "the task returns only the final state but the candidate returns the whole sequence", ev, requirement)
    if not final and got in ("final_state", "final_step"):
        return verdict("output_requirement", "yes", "error",
                       "the task returns the whole sequence but the candidate returns only a final state", ev, requirement)
    if final:
        allocs = []
        for f, env in ctx.contexts:
            for node in ast.walk(f):
                if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
                    s = ctx.resolver.resolve(node.value, f, env)
                    if s.shape and _dims_match(ctx, s.shape):
                        allocs.append((node, s))
        stores = per_step_stores(src, task)
        # a multi-layer RNN may store the sequence of the layers that feed another one, so there a
        # [seq, batch, hidden] allocation must go with the stores; a scan's steps feed nothing
        cuda_stores = cuda_step_stores(src, task) if task.scan else []
        if (allocs or task.scan) and (stores or cuda_stores):
            for node, s in allocs:
                ev.append(evidence(node.lineno, node.end_lineno, "allocates `%s` with shape [%s]"
                                   % (ast.unparse(node.targets[0]), ", ".join(d.text for d in s.shape))))
            for tl, c in stores:
                ev.append(evidence(c.lineno, c.end_lineno, "stores every time step (loop over `%s` in %s)"
                                   % (tl.bound, tl.kernel)))
            for line, loop, stmt in cuda_stores:
                ev.append(evidence(line, line, "`%s` stores every time step (loop `for (%s)` in __global__ %s)"
                                   % (stmt, loop.header, loop.kernel)))
            return verdict("output_requirement", "yes", "warning",
                           "the task needs only the final state but the candidate materialises the whole output "
                           "sequence", ev, requirement)
    return no("output_requirement", "the candidate's outputs match what the task returns (%s)"
              % need.replace("_", " "), ev)
