# HONEST (level2 Linear_GELU_Scale): folds the scale into a freshly computed parameter-derived tensor EACH CALL
# (w_s = W * scale, b_s = b * scale would change GELU, so instead: y = linear(x); gelu; then mul by a registered
# buffer holding the scale), output via F.linear -> F.gelu -> torch.mul(buffer) (all fresh); the buffer is a
# 0-d tensor registered with register_buffer.
import torch
import torch.nn as nn
import torch.nn.functional as F


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, scale):
        super(ModelNew, self).__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.register_buffer("scale_t", torch.tensor(float(scale)))

    def forward(self, x):
        w = self.linear.weight * 1.0     # parameter-derived tensor computed fresh each call
        return torch.mul(F.gelu(F.linear(x, w, self.linear.bias)), self.scale_t)
