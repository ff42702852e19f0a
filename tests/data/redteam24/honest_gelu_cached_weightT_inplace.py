# HONEST (level2 Linear_GELU_Scale): caches W^T as a registered buffer (derived from the parameter, refreshed if
# the parameter changes), computes addmm into a fresh output, then GELU and the scale IN PLACE on that fresh tensor.
import torch
import torch.nn as nn
import torch.nn.functional as F


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, scale):
        super(ModelNew, self).__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.scale = scale
        self.register_buffer("wt", torch.empty(in_features, out_features), persistent=False)
        self._ver = None

    def forward(self, x):
        w = self.linear.weight
        key = (w._version, w.data_ptr(), w.device)
        if self._ver != key or self.wt.device != w.device:
            self.wt = w.detach().t().contiguous()
            self._ver = key
        y = torch.addmm(self.linear.bias, x, self.wt)   # fresh
        y = F.gelu(y)                                    # fresh (gelu has no in-place form)
        y.mul_(self.scale)                               # in place on the fresh tensor
        return y
