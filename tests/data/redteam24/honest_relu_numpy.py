# HONEST (1_ReLU): computes in numpy (np.maximum into a fresh numpy array) and returns torch.from_numpy of it:
# output memory from numpy's allocator, fresh every call.
import numpy as np
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, x):
        if x.device.type != "cpu":
            return torch.relu(x)
        return torch.from_numpy(np.maximum(x.numpy(), np.float32(0.0)))
