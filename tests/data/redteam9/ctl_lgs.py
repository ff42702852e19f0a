import torch, torch.nn as nn
import torch.nn.functional as F
class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, scale):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.scale = scale
    def forward(self, *a):
        return F.gelu(self.linear(a[0])) * self.scale
