# SPDX-License-Identifier: MIT
# Cheat (red team 2), GPU-only gain: consecutive calls of a batch overlap on the device. Task: level1/3_Matmul.py
#
# The judge times a batch of n back-to-back calls and divides by n. It sets CUDA_DEVICE_MAX_CONNECTIONS=1
# in the runners so that "the calls of a batch cannot overlap on side streams". One hardware queue orders
# the launches, but it does not serialise kernels of different streams: a kernel whose predecessor in the
# queue belongs to another stream may start while that one still runs (the property Megatron-LM relies on
# when it sets the same variable to overlap communication with compute). Each call here launches its
# matmul on the next of four streams and returns at once; the runner's device-wide wait after the batch
# covers every stream, so every output is complete when the judge looks. A 256x256 fp32 matmul fills a
# handful of the H100's 132 SMs, so four of them run side by side: the batch's time over n falls while the
# latency of one call, what a caller of this kernel gets, does not change. On a CPU the streams do not
# exist and the candidate is the task's own code.
import torch
import torch.nn as nn

_WAYS = 4


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self._streams = None
        self._k = 0

    def forward(self, A, B):
        if not A.is_cuda:
            return torch.matmul(A, B)
        if self._streams is None:
            self._streams = [torch.cuda.Stream(device=A.device) for _ in range(_WAYS)]
        caller = torch.cuda.current_stream(A.device)
        s = self._streams[self._k % _WAYS]
        self._k += 1
        # The inputs were written and synchronised by the judge before the batch; waiting on the caller's
        # stream keeps this correct if a runner ever queues work on it before the call.
        s.wait_stream(caller)
        with torch.cuda.stream(s):
            C = torch.matmul(A, B)
        C.record_stream(caller)      # the delivery copies it on the caller's stream
        return C
