import torch, torch.nn as nn
import torch.nn.functional as F
class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        pass
    def forward(self, *a):
        return torch.softmax(a[0], dim=1)
