# SPDX-License-Identifier: MIT
# Cheat (red team 2): the output is not computed when the call returns. Task: level1/2_Softmax.py
#
# forward() returns an unwritten tensor (a subclass) and keeps, besides a reference to its input in the
# judge's arena, a fingerprint of that input and a cheap fp16 copy of it (an exact copy for the first
# call of a batch, which is where a one-call correctness trial lands). The softmax is computed only when
# the runner copies the output out (Tensor.copy_), straight into the place the judge drew, from the
# arena input. The judge overwrites one input slot between the batch's answer and the delivery to catch
# exactly this; the fingerprint tells which slot it was, and that one output is computed from the copy:
# off by ~1e-5 (fp16 inputs), inside atol/rtol 1e-4, and seen by the fp64 precision check only when
# that check happens to draw the overwritten call (one call of 114 a checked round).
import time

import torch
import torch.nn as nn

_softmax_out = torch.ops.aten._softmax.out
_clock = time.perf_counter


class _Late(torch.Tensor):
    @staticmethod
    def _source(st):
        x, fp, backup = st
        if torch.equal(x[:, :4], fp):
            return x
        return backup.float() if backup.dtype != torch.float32 else backup

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        with torch._C.DisableTorchFunction():
            if func is torch.Tensor.copy_ and len(args) >= 2 and isinstance(args[1], _Late) \
                    and not isinstance(args[0], _Late):
                src = args[1]
                st = src.__dict__.pop('_kwb_late', None)
                if st is None:                              # already written: an ordinary copy
                    return args[0].copy_(src.as_subclass(torch.Tensor))
                dst = args[0]
                if dst.dtype == torch.float32 and dst.is_contiguous() and dst.shape == src.shape:
                    _softmax_out(cls._source(st), 1, False, out=dst)
                    return dst
                plain = src.as_subclass(torch.Tensor)
                _softmax_out(cls._source(st), 1, False, out=plain)
                return dst.copy_(plain)
            if getattr(func, '__name__', '') != '__get__':  # anything that may read the data: write it first
                for a in list(args) + list(kwargs.values()):
                    if isinstance(a, _Late):
                        st = a.__dict__.pop('_kwb_late', None)
                        if st is not None:
                            _softmax_out(cls._source(st), 1, False, out=a.as_subclass(torch.Tensor))
            args = [a.as_subclass(torch.Tensor) if isinstance(a, _Late) else a for a in args]
            kwargs = {k: (v.as_subclass(torch.Tensor) if isinstance(v, _Late) else v) for k, v in kwargs.items()}
            return func(*args, **kwargs)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self._last = None

    def forward(self, x):
        now = _clock()
        first = self._last is None or now - self._last > 5e-4
        backup = x.clone() if first else x.to(torch.float16)
        out = torch.Tensor._make_subclass(_Late, torch.empty_like(x))
        out.__dict__['_kwb_late'] = (x, x[:, :4].clone(), backup)
        self._last = _clock()
        return out
