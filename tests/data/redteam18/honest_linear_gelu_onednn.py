# Red team 18 honest candidate (level2 1_Linear_GELU_Scale): the GEMM through oneDNN (fp32, weight converted once
# per weight version), bias added in place, exact GELU (erf form) and the scale in place. Locally F.linear takes
# 2.94 ms on one core (this torch build has no MKL); oneDNN fp32 GEMMs are several times faster.
import math

import torch
import torch.nn as nn

_linear = torch._C._nn.mkldnn_linear


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, scale):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.scale = float(scale)
        self._wt = None
        self._ver = None

    def _weight_t(self):
        w = self.linear.weight
        if self._wt is None or self._ver != w._version or tuple(self._wt.shape) != tuple(w.shape):
            self._wt = w.detach().contiguous().to_mkldnn()
            self._ver = w._version
        return self._wt

    def forward(self, x):
        y = _linear(x.contiguous().to_mkldnn(), self._weight_t(), None).to_dense()
        y.add_(self.linear.bias)
        # exact GELU: 0.5 * y * (1 + erf(y / sqrt(2))), times scale
        g = torch.erf(y * (1.0 / math.sqrt(2.0)))
        g.add_(1.0).mul_(y).mul_(0.5 * self.scale)
        return g
