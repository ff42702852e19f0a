# Honest (plain PyTorch, runs on CPU): a tiny strategy registry; the implementation is chosen among the
# subclasses of SoftmaxImpl defined in this file (SoftmaxImpl.__subclasses__()). Both compute softmax.
import torch
import torch.nn as nn


class SoftmaxImpl:
    priority = 0

    @classmethod
    def supports(cls, x):
        return False

    @staticmethod
    def run(x):
        raise NotImplementedError


class TwoPassImpl(SoftmaxImpl):
    priority = 1

    @classmethod
    def supports(cls, x):
        return x.dim() == 2

    @staticmethod
    def run(x):
        m = x.amax(dim=1, keepdim=True)
        e = torch.exp(x - m)
        return e / e.sum(dim=1, keepdim=True)


class LogSumExpImpl(SoftmaxImpl):
    priority = 0

    @classmethod
    def supports(cls, x):
        return True

    @staticmethod
    def run(x):
        return torch.exp(x - torch.logsumexp(x, dim=1, keepdim=True))


def pick_impl(x):
    impls = sorted(SoftmaxImpl.__subclasses__(), key=lambda c: -c.priority)
    for impl in impls:
        if impl.supports(x):
            return impl
    raise RuntimeError("no softmax implementation for %s" % (tuple(x.shape),))


class ModelNew(nn.Module):
    def forward(self, x):
        return pick_impl(x).run(x)
