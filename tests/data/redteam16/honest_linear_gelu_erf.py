# Honest, differently written: Linear -> exact (erf) GELU -> scale, fused by hand: one addmm for the
# affine map, then 0.5*y*(1+erf(y/sqrt(2))) with the scale folded into the 0.5. Same parameters (nn.Linear
# made in the same order, so the seeded init matches), same fp32 work.
import math

import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, scale):
        super(ModelNew, self).__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.half_scale = 0.5 * scale

    def forward(self, x):
        y = torch.addmm(self.linear.bias, x, self.linear.weight.t())
        return y * (1.0 + torch.erf(y * (1.0 / math.sqrt(2.0)))) * self.half_scale
