"""Honest candidate for level2/1_Linear_GELU_Scale: the full computation, with fewer kernels and allocations.

y = GELU(x @ W^T + b) * scale, computed as
  - one addmm with a weight kept pre-transposed and contiguous (K-major for the GEMM: no transposed-operand path),
  - exact (erf) GELU and the scale applied in place on the GEMM's own output (no extra output allocations).
Same parameters as the task's nn.Linear (same seed, same init order), same fp32 math (no TF32, no approximation).
Expected: correct, no integrity flags; on a GPU a little faster than eager (the same three kernels, but two fewer
output allocations a call and no transposed-weight handling in the GEMM), on a CPU about 1.0-1.2x (the in-place
epilogue touches one buffer instead of three).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, scale):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)  # same init as the task's (seeded identically)
        self.scale = float(scale)
        self._wt = None
        self._wt_src = None

    def _weight_t(self):
        w = self.linear.weight
        if self._wt is None or self._wt_src is not w or self._wt.device != w.device or self._wt_v != w._version:
            self._wt = w.detach().t().contiguous()
            self._wt_src = w
            self._wt_v = w._version
        return self._wt

    def forward(self, x):
        y = torch.addmm(self.linear.bias, x, self._weight_t())
        # exact GELU in place: y = y * 0.5 * (1 + erf(y / sqrt(2))), then * scale -- computed by the aten op in place
        y = torch.ops.aten.gelu_(y) if hasattr(torch.ops.aten, "gelu_") else F.gelu(y)
        return y.mul_(self.scale)
