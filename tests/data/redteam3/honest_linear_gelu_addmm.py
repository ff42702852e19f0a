import torch, torch.nn as nn, torch.nn.functional as F
class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, scale):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.scale = scale
    def forward(self, x):
        y = torch.addmm(self.linear.bias, x, self.linear.weight.t())
        y = F.gelu(y)
        return y.mul_(self.scale)
