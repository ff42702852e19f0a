# SPDX-License-Identifier: MIT
"""The runners' core made cold before each frame, as the GPU's L2 is flushed: whichever runner ran last on it
leaves no warmer caches to the next frame than the other lane gets.

Both runners share one core (runnerclient.runner_cpus). In a round the reference's lane runs three frames (dry,
eager, graph) to the candidate's one, so eager's frame often follows a frame of its own process, with that
process's interpreter, torch's dispatcher and its buffers still in the core's caches, and the candidate's
frame always follows the other process's. The judge's frames of the task's own code on both lanes said so: on
four H200s the candidate's lane took 0.25 ms a frame longer than eager's for the same code once both ran
real calls in the timed rounds (tests/gpu/results/h200x4_s16.md), the runner's own phases only (its wake-up,
its batch, its delivery), the judge's copy unchanged.

`cool()` moves the judge's calling thread onto the runners' core for a moment, writes a buffer larger than that
core's private caches, and moves it back: outside the frame, the runners stopped. The cost is the write (a
few hundred microseconds), no part of any figure.
"""
import ctypes
import os

COOL_FACTOR = 2  # the buffer: this many times the core's private caches (L1 and L2 together)
COOL_MIN = 4 << 20


def private_cache_bytes(cpu):
    """The sum of the caches that `cpu` does not share with another core (from sysfs), or 0."""
    total = 0
    base = "/sys/devices/system/cpu/cpu%d/cache" % cpu
    try:
        names = sorted(os.listdir(base))
    except OSError:
        return 0
    for n in names:
        if not n.startswith("index"):
            continue
        try:
            with open(os.path.join(base, n, "shared_cpu_list")) as f:
                shared = f.read().strip()
            with open(os.path.join(base, n, "size")) as f:
                size = f.read().strip()
        except OSError:
            continue
        if "," in shared or "-" in shared:  # shared with a sibling thread or other cores: count only what is private
            with open(os.path.join(base, n, "level")) as f:
                if f.read().strip() not in ("1", "2"):
                    continue
        mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(size[-1:], 1)
        try:
            total += int(size.rstrip("KMG")) * mult
        except ValueError:
            continue
    return total


class Cooler:
    """Writes `nbytes` (default COOL_FACTOR times the core's private caches, at least COOL_MIN) on `cpus`."""

    def __init__(self, cpus, nbytes=None):
        self.m_cpus = set(cpus)
        if nbytes is None:
            nbytes = max(COOL_MIN, COOL_FACTOR * max((private_cache_bytes(c) for c in self.m_cpus), default=0))
        self.m_bytes = int(nbytes)
        self.m_buf = ctypes.create_string_buffer(self.m_bytes)
        self.m_addr = ctypes.addressof(self.m_buf)
        self.m_value = 0

    @property
    def nbytes(self):
        return self.m_bytes

    def cool(self):
        try:
            old = os.sched_getaffinity(0)
        except OSError:
            return
        moved = old != self.m_cpus
        try:
            if moved:
                os.sched_setaffinity(0, self.m_cpus)
            self.m_value = (self.m_value + 1) & 0xFF
            ctypes.memset(self.m_addr, self.m_value, self.m_bytes)
        except OSError:
            pass
        finally:
            if moved:
                try:
                    os.sched_setaffinity(0, old)
                except OSError:
                    pass
