# HONEST (view_flatten): returns torch.flatten(x, 1), a VIEW OF THE INPUT (as the task's own output is), through a
# custom __call__ that delegates, a forward hook returning the same tensor, and a registered buffer.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()
        self.register_buffer("dummy", torch.ones(1))
        self.register_forward_hook(lambda m, a, out: out)

    def __call__(self, *args, **kwargs):
        return super(ModelNew, self).__call__(*args, **kwargs)

    def forward(self, x):
        return torch.flatten(x, 1)
