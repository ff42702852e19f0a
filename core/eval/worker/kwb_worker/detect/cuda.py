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


def time_loops(source):
    """[(kernel, loop header, first line offset, last line offset, carried names)] for a CUDA
    source string; offsets are 0-based line numbers inside the string."""
    text = strip(source)
    found = []
    for name, ks, ke in kernels(text):
        covered = -1
        for loop in loops(text, ks + 1, ke):
            if loop[0] < covered:
                continue
            state, _ = carried_state(text, ks, loop)
            if state and has_inner_work(text, loop):
                first = text.count("\n", 0, loop[0])
                last = text.count("\n", 0, loop[3])
                found.append((name, loop[1].strip(), first, last, state))
                covered = loop[3]
    return found
