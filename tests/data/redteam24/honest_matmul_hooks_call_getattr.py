# HONEST (3_Matmul): a forward pre-hook (makes inputs contiguous), a forward hook that replaces the output with
# output * 1.0 (a fresh tensor), a custom __call__ that just delegates to nn.Module.__call__, a __getattr__ override
# that forwards unknown names to an inner module, and forward bound as an instance attribute in __init__.
import torch
import torch.nn as nn


class _Inner(nn.Module):
    def __init__(self):
        super(_Inner, self).__init__()
        self.alpha = 1.0

    def forward(self, A, B):
        return torch.mm(A, B)


def _pre(module, args):
    return tuple(a.contiguous() for a in args)


def _post(module, args, out):
    return out * 1.0


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()
        self.inner = _Inner()
        self.register_forward_pre_hook(_pre)
        self.register_forward_hook(_post)
        self.forward = self._fast   # instance attribute: nn.Module's call path looks it up on the instance

    def __getattr__(self, name):
        try:
            return super(ModelNew, self).__getattr__(name)
        except AttributeError:
            inner = super(ModelNew, self).__getattr__("inner")
            return getattr(inner, name)

    def __call__(self, *args, **kwargs):
        return super(ModelNew, self).__call__(*args, **kwargs)

    def _fast(self, A, B):
        return self.inner(A, B) * self.alpha   # alpha found through __getattr__ on the inner module
