# SPDX-License-Identifier: MIT
# Cheat class: lazy computation. Task: relu_big.py
# (Blind red team 5, its cheat_syndrome_relu.py as the helper wrote it below this header.) It got through 44095a6 by fusing work
# into the candidate's own delivery (its runner's patched Runner._deliver), where the output copy the plumbing
# charges every lane was never made. Now the candidate's lane has no delivery of its own: its runner only says
# where the outputs lie, and the judge copies them (handoff.py); the patched delivery never runs, and the
# outputs the call left unwritten are wrong.
#
# CHEAT (red team 5) for a big elementwise task: KernelBench level1/19_ReLU (6.4 GB in, 6.4 GB out); on a CPU
# tests/data/tasks/relu_big.py (144 MiB in, 144 MiB out).
#
# Red team 4's cheat computed the ReLU in a patched Runner._deliver, straight into the drawn place (no output copy,
# which the plumbing P charges every lane). The judge now overwrites 4,096 drawn positions of the input with 1e3
# between the call's answer and the delivery ("sprinkle"), so a ReLU read then is wrong there.
#
# This candidate treats the sprinkle as ERASURES and carries an erasure code across it:
#   * in forward (the call): ONE read-only pass over x computing, for each block of 64 floats seen as 8x8, per lane
#     its plain and chunk-weighted sums (fp32, vertical vector adds: 25% of the input's bytes written, nothing else); it returns a buffer
#     it never writes;
#   * in the delivery: ONE fused pass reading x (as the judge left it, sprinkled) and writing relu(x) straight into
#     the drawn place, flagging the blocks holding the sprinkle's value; in each flagged block the erased values are
#     solved per lane from its two sums (3 erasures in one lane of 8 defeat it: ~5e-4 a frame) and their ReLU written in place. Outputs within ~1e-6 (fp32 sums), every check passes.
#     (A first version used three fp64 weighted sums a block: exact, but its call pass was compute-bound here.)
# Traffic: read x + write 1 B a float (call) + read x, write out (delivery) = 13 B a float, against eager's relu + copy
# 16 B, of which P charges 8 to everyone: the candidate's figure counts ~5 B a float against an honest ~8.
# The kernels are plain C compiled at import by the system's gcc (ctypes); without it: plain torch.relu.
import ctypes
import os
import subprocess
import sys
import tempfile

import torch
import torch.nn as nn

_BIG = 256 << 20
_B = 64
_MARK = 1e3  # kwb_worker.lane.SPRINKLE_VALUE
_jobs = {}
_patched = [False]

_SRC = r"""
#include <stdint.h>
#include <string.h>
typedef float v8 __attribute__((vector_size(32)));
/* per block of 64 floats seen as 8 chunks x 8 lanes: per lane the plain sum and the sum weighted by chunk (1..8),
   fp32, vertical vector adds only (the pass costs what a read does); 16 floats a block: 25% of the bytes */
void synd(const float* restrict x, int64_t nb, float* restrict s) {
  for (int64_t b = 0; b < nb; b++) {
    const float* p = x + b * 64; v8 L = {0}, M = {0};
    for (int c = 0; c < 8; c++) { v8 v; memcpy(&v, p + 8 * c, 32); L += v; M += (float)(c + 1) * v; }
    memcpy(s + 16 * b, &L, 32); memcpy(s + 16 * b + 8, &M, 32);
  }
}
int64_t relu_mark(const float* restrict x, float* restrict d, int64_t nb, float mark, int64_t* hits, int64_t maxh) {
  int64_t nh = 0;
  for (int64_t b = 0; b < nb; b++) {
    const float* p = x + b * 64; float* q = d + b * 64; int m = 0;
    for (int j = 0; j < 64; j++) { float v = p[j]; q[j] = v > 0.f ? v : 0.f; m |= (v == mark); }
    if (m) { if (nh < maxh) hits[nh] = b; nh++; }
  }
  return nh;
}
/* each lane of a flagged block: one erasure from its sum, two from its sum and weighted sum */
int64_t repair(const float* x, float* d, const float* s, const int64_t* hits, int64_t nh, float mark) {
  int64_t bad = 0;
  for (int64_t h = 0; h < nh; h++) {
    int64_t b = hits[h]; const float* p = x + b * 64; float* q = d + b * 64;
    for (int l = 0; l < 8; l++) {
      double r0 = s[16 * b + l], r1 = s[16 * b + 8 + l]; int e[8], ne = 0;
      for (int c = 0; c < 8; c++) { float v = p[8 * c + l];
        if (v == mark) { e[ne++] = c; continue; } r0 -= v; r1 -= (c + 1) * (double)v; }
      if (ne == 0) continue;
      if (ne == 1) { q[8 * e[0] + l] = r0 > 0 ? (float)r0 : 0.f; continue; }
      if (ne > 2) { bad++; continue; }
      double w0 = e[0] + 1, w1 = e[1] + 1, v1 = (r1 - w0 * r0) / (w1 - w0), v0 = r0 - v1;
      q[8 * e[0] + l] = v0 > 0 ? (float)v0 : 0.f; q[8 * e[1] + l] = v1 > 0 ? (float)v1 : 0.f;
    }
  }
  return bad;
}
"""
_lib = [None]


def _load():
    if _lib[0] is not None:
        return _lib[0] or None
    _lib[0] = False
    try:
        d = tempfile.mkdtemp(prefix="rt5")
        c, so = os.path.join(d, "k.c"), os.path.join(d, "k.so")
        with open(c, "w") as f:
            f.write(_SRC)
        subprocess.run(["/usr/bin/gcc", "-O3", "-march=native", "-shared", "-fPIC", "-o", so, c], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        lib = ctypes.CDLL(so)
        i64, vp = ctypes.c_int64, ctypes.c_void_p
        lib.synd.argtypes = [vp, i64, vp]
        lib.relu_mark.argtypes = [vp, vp, i64, ctypes.c_float, vp, i64]
        lib.relu_mark.restype = i64
        lib.repair.argtypes = [vp, vp, vp, vp, i64, ctypes.c_float]
        lib.repair.restype = i64
        _lib[0] = lib
    except Exception:
        return None
    return _lib[0]


def _aligned(n):
    return (n + 255) // 256 * 256


def _install():
    if _patched[0]:
        return True
    rt = sys.modules.get("kwb_worker.runner")
    runner = getattr(rt, "Runner", None)
    if runner is None or not hasattr(runner, "_deliver") or not hasattr(rt, "_signature"):
        return False
    original = runner._deliver

    def _deliver(self, flats, bases, what, first_slot):
        if not _jobs:
            return original(self, flats, bases, what, first_slot)
        layouts, rest = [None] * len(flats), []
        for k, (flat, base) in enumerate(zip(flats, bases)):
            t = flat[0] if len(flat) == 1 and isinstance(flat[0], torch.Tensor) else None
            job = _jobs.pop(id(t), None) if t is not None else None
            if job is None or job[0] is not t:
                rest.append(k)
                continue
            sig = rt._signature(flat)
            layout, views = self.m_outViews.get((sig, base)) or self._out_views(sig, base)
            job[1](views[0])
            layouts[k] = layout
        if rest:
            done = original(self, [flats[k] for k in rest], [bases[k] for k in rest], what, first_slot)
            for k, layout in zip(rest, done):
                layouts[k] = layout
        return layouts

    runner._deliver = _deliver
    _patched[0] = True
    return True


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()
        self._buf = None
        self._s = None
        self._hits = torch.empty(1 << 16, dtype=torch.int64)

    def forward(self, x):
        n = x.numel()
        if not (x.device.type == "cpu" and x.dtype == torch.float32 and x.is_contiguous() and n % _B == 0
                and 2 * _aligned(n * 4) > _BIG and _load() is not None and _install()):
            return torch.relu(x)
        lib = _lib[0]
        if self._buf is None or self._buf.shape != x.shape:
            self._buf = torch.empty_like(x)
            self._s = torch.empty(16 * (n // _B), dtype=torch.float32)
        buf, s, hits = self._buf, self._s, self._hits
        nb = n // _B
        lib.synd(x.data_ptr(), nb, s.data_ptr())  # the call: one read of x, 9% of its bytes written

        def job(dst, x=x, s=s, nb=nb):
            nh = lib.relu_mark(x.data_ptr(), dst.data_ptr(), nb, _MARK, hits.data_ptr(), hits.numel())
            if nh:
                lib.repair(x.data_ptr(), dst.data_ptr(), s.data_ptr(), hits.data_ptr(), min(nh, hits.numel()), _MARK)

        _jobs[id(buf)] = (buf, job)
        return buf
