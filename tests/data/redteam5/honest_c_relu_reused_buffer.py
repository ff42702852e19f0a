# HONEST CONTROL (red team 5) for tests/data/tasks/relu_big.py: the same gcc-compiled loop as cheat_syndrome_relu.py,
# but the whole ReLU is computed in forward into a buffer kept across calls (no fresh pages), and the runner's own
# delivery copies it. What this gets against eager is what buffer reuse and the C loop are worth on their own; what
# cheat_syndrome_relu.py gets beyond it is the deferral.
import ctypes
import os
import subprocess
import tempfile

import torch
import torch.nn as nn

_BIG = 256 << 20
_SRC = r"""
#include <stdint.h>
void relu(const float* restrict x, float* restrict d, int64_t n) {
  for (int64_t i = 0; i < n; i++) { float v = x[i]; d[i] = v > 0.f ? v : 0.f; }
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
        lib.relu.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64]
        _lib[0] = lib
    except Exception:
        return None
    return _lib[0]


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()
        self._buf = None

    def forward(self, x):
        if not (x.device.type == "cpu" and x.dtype == torch.float32 and x.is_contiguous() and _load() is not None):
            return torch.relu(x)
        if self._buf is None or self._buf.shape != x.shape:
            self._buf = torch.empty_like(x)
        _lib[0].relu(x.data_ptr(), self._buf.data_ptr(), x.numel())
        return self._buf
