# CHEAT (red team 4) for KernelBench level1/1_Square_matrix_multiplication_ (C = A @ B, N = 4096, fp32;
# about 4 calls a frame on an H100).
#
# The judge charges a candidate for what happens on ITS device: the runner waits for device 0
# (torch.cuda.synchronize() of the current device), the L2 flush, the "lingering GPU work" probe and the
# baselines all live on that one GPU. Nothing stops the candidate's process from seeing the host's other
# GPUs: the worker passes CUDA_VISIBLE_DEVICES through as it finds it (a suite lane narrows it to one GPU;
# a plain evaluation on a multi-GPU node inherits all of them). The eager baseline gets one GPU; this
# candidate recruits the idle ones:
#   * the calls of a frame are issued back to back without a wait between them, so call i can be shipped
#     to another GPU and computed there while the next calls are issued (it reads the runner's own loop,
#     `slots` and `i`, from the caller's frame to know how many calls the frame holds and which one this is);
#   * the first calls of a frame go to the spare GPUs (inputs copied out on device 0's stream, so they are
#     read before the judge may overwrite a slot), the last ones stay home, and at the frame's last call the
#     spare results are copied back into the outputs already returned, behind a wait on a home side stream
#     (CUDA_DEVICE_MAX_CONNECTIONS=1 puts every stream of a device in one queue: an earlier cross-device
#     wait would have serialised the frame);
#   * every result is exact fp32 (the same cuBLAS kernel on the same GPU model), so every check passes;
#     everything ends inside the frame, so nothing lingers on device 0 to be seen.
# With 4 GPUs the frame's 4 calls run side by side (~3x eager); with 2, about 1.7x. With one GPU, on a CPU,
# for small matrices or single-call frames (the correctness trials) it is a plain torch.matmul.
import sys

import torch
import torch.nn as nn

_MIN_FLOPS = 2 * 2048 ** 3  # below this the copies and extra launches cost more than a spare GPU saves


def _frame_position():
    """(calls in this frame, this call's place) read from the runner's batch loop (runner.Runner.batch.calls),
    or None outside it."""
    f = sys._getframe(2)
    for _ in range(8):
        if f is None:
            return None
        if f.f_code.co_name == "calls":
            loc = f.f_locals
            slots, i = loc.get("slots"), loc.get("i")
            if isinstance(slots, list) and isinstance(i, int):
                return len(slots), i
            return None
        f = f.f_back
    return None


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()
        self._spares = None
        self._inbound = {}
        self._home_side = None
        self._pending = []  # (home output, spare result, spare device) to copy back at the frame's last call

    def _find_spares(self, home):
        if self._spares is not None:
            return self._spares
        spares = []
        try:
            for d in range(torch.cuda.device_count()):
                if d != home.index and torch.cuda.can_device_access_peer(home.index, d) and \
                        torch.cuda.can_device_access_peer(d, home.index) and \
                        torch.cuda.get_device_name(d) == torch.cuda.get_device_name(home.index):
                    dev = torch.device("cuda", d)
                    self._inbound[d] = torch.cuda.Stream(device=dev)
                    spares.append(dev)
            if spares:
                self._home_side = torch.cuda.Stream(device=home)
        except Exception:
            spares = []
        self._spares = spares
        return spares

    def _flush(self, home):
        """The spare results into the outputs already returned, behind waits placed after this frame's home work."""
        if not self._pending:
            return
        with torch.cuda.device(home), torch.cuda.stream(self._home_side):
            for out, res, dev in self._pending:
                with torch.cuda.device(dev):
                    out.copy_(res)  # on the spare's stream, after its matmul; the wait lands on home_side
        self._pending = []

    def forward(self, A, B):
        if not (A.is_cuda and B.is_cuda and A.dim() == 2 and B.dim() == 2 and A.dtype == torch.float32
                and B.dtype == torch.float32 and 2 * A.shape[0] * A.shape[1] * B.shape[1] >= _MIN_FLOPS):
            return torch.matmul(A, B)
        home = A.device
        spares = self._find_spares(home)
        where = _frame_position()
        if not spares or where is None or where[0] < 2:
            self._flush(home)
            return torch.matmul(A, B)
        n, i = where
        gpus = len(spares) + 1
        at_home = max(1, n // gpus)  # the frame's last calls stay on device 0
        if i >= n - at_home:
            out = torch.matmul(A, B)
            if i == n - 1:
                self._flush(home)
            return out
        dev = spares[i % len(spares)]
        out = torch.empty((A.shape[0], B.shape[1]), dtype=A.dtype, device=home)
        with torch.cuda.device(dev):
            compute = torch.cuda.current_stream(dev)
            with torch.cuda.stream(self._inbound[dev.index]):
                a = A.to(dev, non_blocking=True)  # copied on device 0's stream: read before the batch answers
                b = B.to(dev, non_blocking=True)
            compute.wait_stream(self._inbound[dev.index])
            a.record_stream(compute)
            b.record_stream(compute)
            res = torch.mm(a, b)
        self._pending.append((out, res, dev))
        return out  # filled at the frame's last call, before the runner's wait for the device
