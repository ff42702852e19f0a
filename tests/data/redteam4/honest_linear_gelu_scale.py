# Honest candidate for tasks/level2/1_Linear_GELU_Scale.py: y = GELU(x W^T + b) * scale with one addmm,
# then GELU and the scale applied to our own intermediate (never to the input), strict fp32.
import torch
import torch.nn as nn
import torch.nn.functional as F


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, scale):
        super(ModelNew, self).__init__()
        # Same module, same order: the seeded initialisation gives the reference's weights.
        self.linear = nn.Linear(in_features, out_features)
        self.scale = float(scale)

    def forward(self, x):
        z = torch.addmm(self.linear.bias, x, self.linear.weight.t())  # bias + x @ W^T in one GEMM
        y = F.gelu(z)  # exact (erf) GELU, as the task's F.gelu default
        return y.mul_(self.scale)
