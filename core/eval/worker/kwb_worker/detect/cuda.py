# SPDX-License-Identifier: MIT
"""A small reader for CUDA C kernels found in `load_inline` sources: enough structure (kernels,
loops, statements) to find a time loop with loop-carried state. Comments and string literals are
removed first, so text inside them never counts."""
import re

_TYPES = r"(?:const\s+)?(?:unsigned\s+)?(?:float|double|int|half|__half|__nv_bfloat16|float2|float4|auto|long|size_t|bool)"
_DECL = re.compile(_TYPES + r"\s+(\w+)\s*(\[[^\]]*\])?\s*(?:=|;|,)")
_ASSIGN = re.compile(r"^\s*(\w+)\s*((?:\[[^\]]*\])*)\s*([+\-*/]?=)(?!=)(.*)$", re.S)
_IDENT = re.compile(r"[A-Za-z_]\w*")


def strip(text):
    """Blank out comments and string/char literals, keeping offsets (and so line numbers)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(c + " " * (j - i - 2) + c if j - i >= 2 else c)
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _match(text, i, open_c, close_c):
    depth = 0
    for j in range(i, len(text)):
        if text[j] == open_c:
            depth += 1
        elif text[j] == close_c:
            depth -= 1
            if depth == 0:
                return j
    return len(text) - 1


def kernels(text):
    """[(name, body start, body end)] of every __global__ function."""
    res = []
    # __launch_bounds__(...) may stand before or after `void` (both are legal CUDA)
    for m in re.finditer(r"__global__\s+(?:__launch_bounds__\s*\([^)]*\)\s*)?void\s+"
                         r"(?:__launch_bounds__\s*\([^)]*\)\s*)?(\w+)\s*\(", text):
        p_end = _match(text, m.end() - 1, "(", ")")
        b = text.find("{", p_end)
        if b < 0:
            continue
        e = _match(text, b, "{", "}")
        res.append((m.group(1), b, e))
    return res


def loops(text, start, end):
    """[(header start, header text, body start, body end)] of the loops in text[start:end],
    outermost first (nested loops are listed too)."""
    res = []
    for m in re.finditer(r"\b(for|while)\s*\(", text[start:end]):
        hs = start + m.start()
        p = start + m.end() - 1
        pe = _match(text, p, "(", ")")
        k = pe + 1
        while k < end and text[k].isspace():
            k += 1
        if k < end and text[k] == "{":
            be = _match(text, k, "{", "}")
            res.append((hs, text[p + 1:pe], k + 1, be))
        else:
            se = text.find(";", k)
            res.append((hs, text[p + 1:pe], k, se if se >= 0 else end))
    return res


def statements(body):
    return [s for s in re.split(r"[;{}]", body) if s.strip()]


def carried_state(text, kstart, loop):
    """Names whose value flows from one iteration to the next: declared before the loop (in the
    kernel or as a parameter), read in the body before they are written, and written with `=`
    (an accumulation `+=` of a reduction is not state)."""
    hs, header, bs, be = loop
    before = text[kstart:hs]
    declared = {m.group(1) for m in _DECL.finditer(before)}
    arrays = {m.group(1) for m in _DECL.finditer(before) if m.group(2)}
    first = {}
    written_plain = set()
    local = set()
    for stmt in statements(text[bs:be]):
        s = stmt.strip()
        d = _DECL.match(s + ";")
        if d and s.split()[0] not in ("return",):
            local.add(d.group(1))
            continue
        m = _ASSIGN.match(s)
        if m:
            name, idx, op, rhs = m.groups()
            for r in _IDENT.findall(rhs + " " + idx):
                first.setdefault(r, "read")
            if op != "=":
                first.setdefault(name, "read")
            else:
                first.setdefault(name, "write")
                written_plain.add(name)
            if op == "=" and not idx:
                written_plain.add(name)
            elif idx:
                written_plain.add(name)
        else:
            for r in _IDENT.findall(s):
                first.setdefault(r, "read")
    state = sorted(n for n in written_plain
                   if n in declared and n not in local and first.get(n) == "read")
    return state, arrays


def has_inner_work(text, loop):
    hs, header, bs, be = loop
    body = text[bs:be]
    return bool(re.search(r"\b(for|while)\s*\(|__syncthreads\s*\(|\.sync\s*\(", body))


_INDEX = re.compile(r"(\w+)\s*\[([^\]]*)\]")
_UNIT_STEP = r"^\s*(?:\+\+\s*{v}|{v}\s*\+\+|{v}\s*\+=\s*1|{v}\s*=\s*{v}\s*\+\s*1)\s*$"


class Loop:
    """A time loop of a CUDA kernel: offsets are 0-based line numbers inside the source string."""

    def __init__(self, kernel, header, first, last, state, scan, stores):
        self.kernel = kernel
        self.header = header
        self.first = first
        self.last = last
        self.state = state
        self.scan = scan  # a recurrence without a reused weight matrix or inner reduction
        self.stores = stores  # [(line offset, statement)] writing every step at an address that moves with it


def _step_facts(text, loop, state):
    """(unit step, fed by moving loads, [(offset, statement)] of per-step stores) of a loop: the
    loop variable and the locals computed from it move with the step; a load or store moves when
    its index reads a moving name. Stores to the carried state or to arrays declared inside the
    loop are not outputs."""
    hs, header, bs, be = loop
    parts = header.split(";")
    if len(parts) != 3:
        return False, False, []
    d = _DECL.match(parts[0].strip() + ";") or _ASSIGN.match(parts[0])
    if not d:
        return False, False, []
    var = d.group(1)
    unit = bool(re.match(_UNIT_STEP.format(v=re.escape(var)), parts[2]))
    moving = {var}
    local = set()
    stmts = []
    pos = bs
    for stmt in re.split(r"([;{}])", text[bs:be]):
        stmts.append((pos, stmt))
        pos += len(stmt)
    for _ in range(3):
        for _, stmt in stmts:
            s = stmt.strip()
            m = _DECL.match(s + ";") if s and s.split()[0] != "return" else None
            if m:
                local.add(m.group(1))
                if set(_IDENT.findall(s.split("=", 1)[1] if "=" in s else "")) & moving:
                    moving.add(m.group(1))
                continue
            a = _ASSIGN.match(s)
            if a and not a.group(2) and set(_IDENT.findall(a.group(4))) & moving:
                moving.add(a.group(1))
    fed = False
    stores = []
    for off, stmt in stmts:
        s = stmt.strip()
        a = _ASSIGN.match(s)
        reads = a.group(4) if a else s
        for m in _INDEX.finditer(reads):
            if set(_IDENT.findall(m.group(2))) & moving and m.group(1) not in local:
                fed = True
        if a and a.group(2) and a.group(1) not in local and a.group(1) not in state and \
                set(_IDENT.findall(a.group(2))) & moving:
            stores.append((text.count("\n", 0, off + len(stmt) - len(stmt.lstrip())), " ".join(s.split())))
    return unit, fed, stores


def time_loops(source, scan_task=False):
    """[Loop] of a CUDA source string: loops carrying state across iterations, either through an
    inner reduction (a weight matrix reused every step) or, for a scan without one, a unit-step
    loop fed by loads that move with the step that stores every step or belongs to a scan task."""
    text = strip(source)
    found = []
    for name, ks, ke in kernels(text):
        covered = -1
        for loop in loops(text, ks + 1, ke):
            if loop[0] < covered:
                continue
            state, _ = carried_state(text, ks, loop)
            if not state:
                continue
            unit, fed, stores = _step_facts(text, loop, state)
            inner = has_inner_work(text, loop)
            if inner or (unit and fed and (stores or scan_task)):
                first = text.count("\n", 0, loop[0])
                last = text.count("\n", 0, loop[3])
                found.append(Loop(name, loop[1].strip(), first, last, state, not inner, stores))
                covered = loop[3]
    return found
