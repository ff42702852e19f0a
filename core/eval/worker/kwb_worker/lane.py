# SPDX-License-Identifier: MIT
"""A lane: one runner process and its arena, whose batches of forward calls the judge times.

Every figure an evaluation reports comes from here, through one path: the eager baseline and the CUDA
graph (the reference's lane, which only ever holds the task's own code), the plumbing (dry batches), and
the candidate (the candidate's lane). A frame is:

  inputs written into the lane's arena, the runner stopped  (outside the frame)
  GPU: L2 flushed, the device waited for                     (outside the frame)
  t0 = the judge's wall clock
     the runner thawed; it makes n calls back to back, each on its own fresh input set, waits for the
     device, and answers; every call's outputs are copied into the arena, to places drawn now: on the
     reference's lane by its runner, on the candidate's by the judge, from where the runner said they lie
     (handoff.py; on a CPU the runner stopped first); the judge overwrites the inputs of one slot, drawn now
  t1 = the judge's wall clock                                (the frame: t1 - t0)
  the runner stopped again                                   (outside the frame)

So whatever the runner does between being thawed and answering is in the frame: work hidden in a call, in
a thread beside it, in an output computed lazily when it is copied out. On a CPU the frame ends instead once the
runner is stopped after its answer, and the outputs are copied after it (COPY_OUTSIDE): nothing of the runner's
runs while they are copied, so nothing can be computed then, and an output copy that costs as much as the call
(an elementwise task's) no longer carries its noise into the figure. Outside frames the runner and
everything it started are stopped (frozen in a cgroup as root), and the judge checks that they used no
CPU there and that no GPU work of theirs outlives a frame (integrity.py).
"""
import bisect
import gc
import math
import os
import random
import time

from . import timing
from .arena import ALIGN, LayoutError
from .failures import Failure
from .integrity import _same
from .runnerclient import RunnerGone, judge_waited_ms


COPY_OUTSIDE = os.environ.get("KWB_CPU_COPY_INSIDE") != "1"  # Lane.frame: on a CPU, outputs copied after the frame
# Lane.spread_check: CPU time in a frame beyond this share of the CPUs' time, and this much more (reading the clocks).
SPREAD_SHARE, SPREAD_SLACK_MS = 1.1, 1.0
PLACES = 64  # where a call's outputs may go: at least this many places (slot and shift), drawn after the calls
CLOBBER = 0.5  # what a clobbered input slot holds after the delivery (Lane.frame)
# Lane.frame: a candidate's batch whose outputs take at most this many bytes (GPU, CPU) is held by its runner until
# the next batch begins, and batches drawn after their calls (within as many bytes in all) to the end: no later output
# may lie in their memory (Lane._reused). A batch's outputs are one of the three output sets that Judge.batch_size
# budgets a call for (BATCH_BYTES).
HOLD_BYTES = {True: 4 << 30, False: 256 << 20}
ANCHOR_ODDS = 4
HOLD_ON = os.environ.get("KWB_X_HOLD") != "0"  # A/B only: no batch held, no output checked (Lane._reused)
SNAPS, SNAP_BYTES = 4, 16 << 20  # outputs of a held batch read again after the next batch, each that small at most
_sysrand = random.SystemRandom()


def align(n):
    return (n + ALIGN - 1) // ALIGN * ALIGN


def _shifts(slots):
    """Shifts within an output slot, so that a call's outputs have PLACES possible places (slots x shifts)."""
    return max(1, -(-PLACES // max(1, slots)))


def _in_slot(in_bytes, chain):
    """Bytes of an input slot: the set, then the chained input's scratch twin where there is a chain."""
    return align(max(in_bytes, ALIGN)) + (align(chain["bytes"]) if chain else 0)


def _shifted(layout, delta):
    return [dict(e, off=e["off"] + delta) if "off" in e else e for e in layout]


def _phases(t0, bt, t_back, dt, t_clob, t1, inner=None):
    """A frame's time by phase (ms): to the runner's receipt of the batch (the thaw, the wake-up), the runner's
    batch, back to the judge, to the start of the delivery, the delivery (the runner's, or the judge's copy), back
    to the judge, the judge's overwrite of a slot. From the runner's stamps (its monotonic clock, the judge's): a
    diagnosis only (the candidate's runner could write anything there, 10**400 included: red team 6's
    wrong_relu_blame_harness.py made this an internal_error); None where they are missing or not finite times."""
    try:
        (b0, b1), (d0, d1) = bt, dt
        marks = [t0, float(b0), float(b1), t_back, float(d0), float(d1), t_clob, t1]
        if not all(math.isfinite(m) for m in marks):
            return None
        out = [round((b - a) * 1000.0, 4) for a, b in zip(marks, marks[1:])]
        if isinstance(inner, list) and len(inner) == 3:
            # the batch's own parts: before its calls, the calls (the runner's clock span), the wait for the device
            # after them, its report (the candidate's lane)
            m = [marks[1]] + [float(x) for x in inner] + [marks[2]]
            if all(math.isfinite(x) for x in m):
                out += [round((b - a) * 1000.0, 4) for a, b in zip(m, m[1:])]
        return out
    except Exception:
        return None


def own_wait(waited, others_ms):
    """A frame's run delay (ms) less the CPU time that the lane's threads and processes other than the runner's main
    thread took during it (`others_ms`; None: unknown, the delay as read). A thread of the lane's own on the runner's
    core makes the main thread wait as another process would: a candidate that did so in its slow frames had them
    dropped as delayed and its fast ones counted (redteam2/cheat_quiet_frames.py). Less its own threads' time, a
    lane can make a frame look quieter than it was, never more delayed: on a CPU the frames are chosen by their wait
    (judge.pick_quiet), and a frame that looks quiet is simply counted, as every frame is on a GPU."""
    if others_ms is None:
        return waited
    return max(0.0, waited - max(0.0, others_ms))


class Frame:
    """What one frame measured: `ms` the judge's wall clock around the batch, `claim` the runner's own
    clock of its calls (a cross-check), `layouts` where each call's outputs lie, `peak` the runner's report
    of its allocator's peak (-1: not asked), `cpu_stopped` the lane's CPU time (ms) since its previous frame
    ended, all of it while stopped (None: not read), `waited` how long the judge's thread and the runner's main
    thread were runnable but waiting for a CPU during the frame (ms, the kernel's run_delay, summed; None: not
    read): the two take turns on different cores (judge.keep_apart), so on an idle machine this is ~0 and a frame
    that another process delayed says so."""

    __slots__ = ("ms", "claim", "layouts", "peak", "cpu_stopped", "bases", "ends", "clobbered", "waited", "phases")

    def __init__(self, ms, claim, layouts, peak, cpu_stopped, bases, ends, clobbered=None, waited=None):
        self.waited = waited
        self.phases = None  # where the frame's time went (Lane.frame; KWB_FRAMES_DUMP only)
        self.ms, self.claim, self.layouts, self.peak, self.cpu_stopped = ms, claim, layouts, peak, cpu_stopped
        self.bases, self.ends = bases, ends  # where each call's outputs were to go, and where its slot ends
        self.clobbered = clobbered  # the input slot overwritten after the delivery (None: none)


class Lane:
    """`slots` input slots and `out_sets` sets of output slots in one arena. `shared_io` (a big task: one
    slot): the outputs go where the inputs were. `trusted`: the reference's lane, whose failures are the
    harness's; the candidate's lane's failures are the candidate's."""

    def __init__(self, name, runner, arena, device, slots, in_bytes, out_bytes, out_sets, shared_io, trusted, judge,
                 chain=None):
        self.name = name
        self.runner = runner
        self.arena = arena
        self.device = device
        self.cuda = device.type == "cuda"
        self.slots = slots
        self.chain = chain  # chain.plan(): the chained input's scratch twin follows the inputs in each slot
        self.scratch_off = align(max(in_bytes, ALIGN))
        self.in_slot = _in_slot(in_bytes, chain)
        self.shifts = _shifts(slots)
        self.out_slot = align(max(out_bytes, ALIGN)) + (1 << 12) + self.shifts * ALIGN
        self.out_sets = out_sets
        self.shared_io = shared_io
        self.trusted = trusted
        self.m_judge = judge
        self.m_registered = None
        self.m_layouts = []
        self.m_lastCpu = None
        self.m_fetcher = None  # the judge's copy of the candidate's outputs (handoff.Fetcher; candidate's lane)
        self.m_held = None  # where the last model batch's outputs lie, the runner told to hold them (Lane._reused)
        self.m_anchors = []  # where batches drawn to be held to the end lie (the runner holds them)
        self.m_drawn = None  # the last batch's outputs, drawn to join them at the next batch (Lane._reused)
        self.m_snaps = []  # a few of the last held batch's outputs as the judge copied them (Lane._reused)
        self.m_drawnSnaps = []  # those of the drawn batch, and of the batches held to the end:
        self.m_anchorSnaps = []

    # ---- geometry --------------------------------------------------------------------------------------
    @staticmethod
    def size_for(slots, in_bytes, out_bytes, out_sets, shared_io, chain=None):
        in_slot = _in_slot(in_bytes, chain)
        out_slot = align(max(out_bytes, ALIGN)) + (1 << 12) + _shifts(slots) * ALIGN
        if shared_io:
            return max(in_slot, out_slot)
        return slots * in_slot + out_sets * slots * out_slot

    def in_base(self, k):
        return k * self.in_slot

    def out_base(self, out_set, k):
        if self.shared_io:
            return 0
        return self.slots * self.in_slot + (out_set * self.slots + k) * self.out_slot

    def out_region(self):
        return (0, self.arena.size) if self.shared_io else (self.slots * self.in_slot, self.arena.size)

    # ---- talking to the runner ---------------------------------------------------------------------------
    @staticmethod
    def _reached(what):
        """The reference's lane, once the candidate is imported and runs as the judge's user: it could signal, kill
        or stop the reference's runner, so whatever goes wrong there is the candidate's crash."""
        return Failure("crash", "the reference's runner %s after the candidate was imported; the candidate's process "
                                "runs as the judge's user and could reach it" % what)

    def ask(self, msg, fds=()):
        """One command to the runner; a failure is the candidate's status on its lane, the harness's on the
        reference's."""
        j = self.m_judge
        self.m_lastCpu = None  # the runner runs now: CPU time from here on is not time while stopped
        try:
            reply = self.runner.request(msg, fds)
        except RunnerGone as e:
            if self.trusted and j.ref_reachable:
                raise self._reached("died (%s)" % e.why)
            if self.trusted:
                raise Failure("internal_error", "the reference's process died running the task's own code: " + e.why)
            if getattr(e, "protocol", False):
                j.checks.note_protocol(e.why)
            raise Failure("crash", e.why + " while %s" % (j.ctx.phase or "starting"))
        # A reply is exactly one of the two: "ok", or a failure object (red team 6's blame_ok_and_fail.py sent both).
        if not isinstance(reply, dict) or not ((reply.get("ok") is True and "fail" not in reply) or (
                reply.get("ok") is not True and isinstance(reply.get("fail"), dict))):
            if self.trusted and j.ref_reachable:
                raise self._reached("answered %r with something that is not a reply" % msg.get("cmd"))
            if self.trusted:
                raise Failure("internal_error", "the reference's process answered %r with %s" % (msg.get("cmd"),
                                                                                              str(reply)[:200]))
            j.checks.note_protocol("reply to %r is not a runner reply: %s" % (msg.get("cmd"), str(reply)[:200]))
            raise Failure("crash", "the candidate's process answered %r with something that is not a reply"
                          % msg.get("cmd"))
        if "fail" in reply:
            st, why = reply["fail"].get("status"), reply["fail"].get("reason")
            if self.trusted and j.ref_reachable:  # e.g. a SIGINT inside a frame (interrupt_the_reference.py)
                raise self._reached("failed (%s)" % str(why)[:200])
            if self.trusted:
                if st == "out_of_memory" or (isinstance(why, str) and "out of memory" in why):
                    raise Failure("harness_out_of_memory", "the task's own code ran out of memory in the reference's "
                                  "process: %s%s" % (why, j.memory_context()))
                raise Failure("internal_error", "the task's own code failed in the reference's process: %s" % why)
            if st not in ("syntax_error", "compile_error", "runtime_error", "crash", "out_of_memory", "no_gpu",
                          "shape_mismatch", "internal_error") or not isinstance(why, str):
                j.checks.note_protocol("failure with an unknown status %r" % (st,))
                st, why = "crash", "the candidate's process reported an unknown failure"
            if st == "internal_error":
                st = "crash"  # the runner cannot declare the harness at fault
            if st == "no_gpu" and self.cuda:
                st = "runtime_error"  # the judge knows there is a GPU: the runner cannot say otherwise
            if st == "out_of_memory" and self.cuda:
                why += j.memory_context()
            raise Failure(st, why)
        return reply

    def hold(self, step):
        """Stopping or continuing the runner's processes; failing to is the candidate's doing on its lane."""
        try:
            step()
        except RunnerGone as e:
            if self.trusted and self.m_judge.ref_reachable:
                raise self._reached("could not be stopped or continued (%s)" % e.why)
            if self.trusted:
                raise Failure("internal_error", "the reference's process could not be stopped: " + e.why)
            self.m_judge.checks.note_protocol(e.why)
            raise Failure("crash", e.why)

    def pause(self):
        self.hold(self.runner.pause)

    def open(self):
        """Hands the arena to the runner (before any task or candidate code is loaded there)."""
        fd = self.arena.export_fd()
        try:
            cpus = getattr(self.runner, "m_cpus", None)
            self.ask({"cmd": "arenas", "device": self.device.type, "kind": self.arena.kind, "size": self.arena.size,
                      "threads": len(cpus) if cpus else None}, fds=(fd,))
        finally:
            if self.arena.kind == "device":
                import os

                os.close(fd)

    # ---- inputs and outputs -------------------------------------------------------------------------------
    def write(self, sets, slots=None):
        """Input sets into slots (`slots`, default 0..), the runner stopped: nothing of it runs while they are
        written; the slots' layouts are told to the runner when they change (once, normally)."""
        slots = list(range(len(sets))) if slots is None else slots
        self.pause()
        try:
            layouts = [self.arena.write(s, base=self.in_base(k)) for k, s in zip(slots, sets)]
        except LayoutError as e:
            raise Failure("internal_error", "inputs do not fit the arena: %s" % e)
        if self.cuda:
            timing._synchronize()
        if len(self.m_layouts) < self.slots:
            # Slots not written yet get this set's layout at their own place (every set has the task's shapes).
            self.m_layouts = [_shifted(layouts[0], self.in_base(k) - self.in_base(slots[0])) for k in range(self.slots)]
        changed = False
        for k, layout in zip(slots, layouts):
            changed |= self.m_layouts[k] != layout
            self.m_layouts[k] = layout
        if changed or self.m_registered is None:
            lo, hi = self.out_region()
            msg = {"cmd": "slots", "inputs": self.m_layouts, "out_lo": lo, "out_hi": hi}
            if self.chain:
                msg["chain"] = dict({k: v for k, v in self.chain.items() if k != "bytes"},
                                    scratch=[self.scratch_layout(k) for k in range(self.slots)])
            self.ask(msg)
            self.m_registered = True
            self.pause()

    def scratch_layout(self, k):
        """Where slot k's chained input is written for its call (chain.py): after the slot's inputs."""
        x = self.m_layouts[k][self.chain["arg"]]
        return [{"off": self.in_base(k) + self.scratch_off, "dtype": x["dtype"], "shape": x["shape"]}]

    def inputs(self, slots):
        """Views of those input slots as they are now (the judge's own reading, the runner stopped)."""
        return [self.arena.read(self.m_layouts[k]) for k in slots]

    def outputs(self, frame):
        """Views of each call's outputs of `frame`, each checked to lie where it was to go."""
        outs = []
        for layout, base, end in zip(frame.layouts, frame.bases, frame.ends):
            try:
                outs.append(self.arena.read(layout, base, end))
            except LayoutError as e:
                if self.trusted:
                    raise Failure("internal_error", "the reference's outputs do not fit the arena: %s" % e)
                self.m_judge.checks.note_protocol("output layout: %s" % e)
                raise Failure("shape_mismatch", "the outputs do not fit the reference's shapes (%s)" % e)
            if layout and "off" in layout[0] and layout[0]["off"] != base:
                if self.trusted:
                    raise Failure("internal_error", "the reference's outputs are not where they were to go")
                self.m_judge.checks.note_protocol("outputs delivered at %r, asked for %d" % (layout[0]["off"], base))
                raise Failure("crash", "the candidate's process delivered its outputs elsewhere than asked")
        return outs

    def fetch(self, reply, bases, ends):
        """The candidate's lane's delivery, by the judge (handoff.py): on a CPU the runner is stopped first; the
        outputs the batch reported are copied into the arena from each call's base. Returns what a runner's
        delivery would ({"layouts"}, and its stamps: the judge's own here)."""
        t = time.perf_counter()
        if not self.cuda:
            self.pause()
        if self.m_fetcher is None:
            from .handoff import Fetcher

            self.m_fetcher = Fetcher(self.arena, self.device, self.runner.m_proc.pid)
        f = self.m_fetcher
        try:
            if self.cuda and reply.get("segs"):
                f.open_segments(reply.get("segs"))
            layouts = f.fetch(reply.get("outs"), bases, ends)
        except Failure as e:
            if e.status == "crash":
                self.m_judge.checks.note_protocol(e.reason)
            raise
        except Exception as e:  # whatever a malformed report trips is the candidate's doing, never the judge's
            self.m_judge.checks.note_protocol("output report: %s: %s" % (type(e).__name__, str(e)[:120]))
            raise Failure("crash", "the candidate's process reported its outputs malformed")
        return {"layouts": layouts, "t": [t, time.perf_counter()]}

    def _reused(self, held, small, what):
        """Outputs of this batch in memory an output of an earlier batch still occupies, or an earlier output changed
        after its batch. The runner holds the batch before until the next batch begins (the batch's "hold"), and to
        the end the batches the judge drew after their calls (the first, then about one in ANCHOR_ODDS, within
        HOLD_BYTES; "anchor_last" in the next batch's command), so no allocation of an honest call can have been
        made over them; only an output buffer kept by the candidate and written again can (red team 17's
        cheat_pool_relu.py: clamp_min(out=) into a pool keyed on the input's address, nothing allocated in the frames,
        1.08-1.22x eager on an H200's 5 us ReLU, unflagged; the drawn batches are for rings of kept buffers longer
        than a batch: red team 22's 1,024, red team 23's that spared the first batch). And a few of the batch
        before's outputs, drawn after it, are read again where they lie, and a few of those of the batches held to
        the end after every batch: one buffer mapped at two addresses (two mmaps of a memfd, red team 23), or mapped
        again at a new address for each reuse a few batches later (red team 24), changes there. A later call
        overwrites what an earlier one returned: a cached output. Read after the frame, from where the judge copied
        the outputs (never from what the runner says)."""
        ranges = self.m_fetcher.ranges if self.m_fetcher is not None else []
        snaps, self.m_snaps = self.m_snaps, []
        self.m_held = ranges if small and ranges else None
        found = any(old and ranges and self._overlap(old, ranges, what) for old in [held] + self.m_anchors)
        again = [] if found else \
            (snaps if held else []) + _sysrand.sample(self.m_anchorSnaps, min(SNAPS, len(self.m_anchorSnaps)))
        for i, (place, size, k, dtype, shape, snap) in enumerate(again):
            try:
                now = self.m_fetcher.read(place, dtype, shape, size)
            except Failure:
                raise
            except Exception as e:  # memory the runner was to hold and the judge cannot read: the candidate's doing
                self.m_judge.checks.note_protocol("held output: %s: %s" % (type(e).__name__, str(e)[:120]))
                raise Failure("crash", "the candidate's process let go of an output the judge had it hold")
            if not _same(now, snap):
                self.m_judge.checks.note_reused(
                    "%s: call %d's output of %s changed after it, where it lies (held): the candidate wrote a "
                    "returned output again (an earlier result changes under its caller)"
                    % (what, k, "the batch before" if held and i < len(snaps) else "a batch held to the end"))
                break
        few = [r for r in ranges if r[1] <= SNAP_BYTES] if self.m_held else []
        self.m_snaps = [r[:5] + (r[5].clone(),) for r in _sysrand.sample(few, min(SNAPS, len(few)))]
        used = sum(r[1] for a in self.m_anchors for r in a) + sum(r[1] for r in ranges)
        drawn = self.m_held and used <= HOLD_BYTES[self.cuda] and \
            (not self.m_anchors or _sysrand.randrange(ANCHOR_ODDS) == 0)
        self.m_drawn = ranges if drawn else None
        self.m_drawnSnaps = self.m_snaps if drawn else []

    def _overlap(self, old, ranges, what):
        old = sorted((r[0], r[0] + r[1]) for r in old)
        starts = [a for a, _ in old]
        for r in ranges:
            p, n, k = r[0], r[1], r[2]
            i = bisect.bisect_right(starts, p + n - 1) - 1
            if i >= 0 and old[i][1] > p:
                self.m_judge.checks.note_reused(
                    "%s: call %d's output lies in memory an output of an earlier batch still held occupies: the "
                    "candidate wrote a returned output again (an output buffer kept across calls; an earlier "
                    "result changes under its caller)" % (what, k))
                return True
        return False

    def spread_check(self, cpu_ms, wall_ms):
        """On a CPU, the candidate's lane may not use more CPU time during a frame than its CPUs give in that time
        (`cpu_ms` read with the runner stopped before and after, `wall_ms` the time between the two reads): the
        runner's CPUs are checked after each frame, not enforced, and a blind red team's candidate moved a hidden
        helper thread (_thread, not in threading.enumerate()) onto the other core at every call and back before
        returning: 3_Matmul at 1.82x and 1.72x, Linear_GELU at 1.62x, clean (redteam11/cheat_twocore_*). A process
        cannot run longer than its CPUs in any stretch of time, so an honest candidate is never near the bound; a
        description where it is exceeded, or "". Not on a GPU yet (its check is owed; KWB_X_SPREAD_GPU=1 turns it on
        there for that check)."""
        if self.cuda and os.environ.get("KWB_X_SPREAD_GPU") != "1":
            return ""
        allowed = self.runner.allowed_cpus()
        if cpu_ms <= allowed * wall_ms * SPREAD_SHARE + SPREAD_SLACK_MS:
            return ""
        return "its processes used %.2f ms of CPU time in %.2f ms on %d CPU(s): they ran on CPUs beyond those it " \
               "was given" % (cpu_ms, wall_ms, allowed)

    # ---- the frame -------------------------------------------------------------------------------------------
    def frame(self, n, what, phase, seed, mode="model", out_set=0, reseed=False, check_side=False, peak=False,
              dry_out=None, cpu=False, slots=None, clobber=False):
        """One timed batch of n calls (on input slots `slots`, default 0..n-1; see the module's docstring): the
        calls, then the delivery of their outputs to places drawn now that the calls are done (a slot of output
        set `out_set` and a shift in it: no output can have been computed where it will be read, so its copy,
        which the plumbing holds too, cannot be skipped). `cpu`: read the lane's CPU time at both ends (outside
        the frame, the runner stopped). `clobber`: once the outputs are delivered, still inside the frame, the
        judge overwrites the floating-point inputs of one of the batch's slots, drawn now. It was put between the
        batch's answer and the delivery, so that an output computed in a runner's delivery from inputs read then
        (deliver_in_place.py) came out wrong; the candidate's lane has no delivery of its own now (handoff.py), and
        there it made every honest output that is a view of its input wrong, the reference's included (red team
        6's view task: every candidate wrong_result). It stays, after the delivery, so that every frame of a round
        holds the same work as before (a slot's worth of writes, plumbing alike); that slot's inputs are no longer
        the set's (Frame.clobbered: the caller writes them again)."""
        slots = list(range(n)) if slots is None else list(slots)
        self.pause()
        if self.trusted and self.m_judge.ref_reachable:
            why = self.runner.tampered()
            if why:
                self.m_judge.checks.note_protocol(why)
                raise Failure("crash", "the candidate's process reached the reference's runner: " + why)
        if self.cuda:
            timing._synchronize()
            self.m_judge.flusher.flush()
            timing._synchronize()
        cpu_stopped = None
        own = not self.cuda  # on a CPU the frame's run delay is read less what the lane's own threads took (own_wait)
        w_before = time.perf_counter()  # (the CPU time's bracket: spread_check)
        before = self.runner.cpu_ms() if cpu or own else None
        if cpu and before is not None and self.m_lastCpu is not None:
            cpu_stopped = before - self.m_lastCpu
        model = mode == "model" and not self.trusted
        held = self.m_held if model else None
        small = model and HOLD_ON and len(slots) * self.out_slot <= HOLD_BYTES[self.cuda]
        anchor = held is not None and self.m_drawn is not None
        if anchor:
            self.m_anchors.append(self.m_drawn)
            self.m_anchorSnaps.extend(self.m_drawnSnaps)
        self.m_held = self.m_drawn = None
        self.m_drawnSnaps = []
        msg = {"cmd": "batch", "slots": slots, "mode": mode, "seed": seed, "reseed": reseed, "what": what,
               "phase": phase, "check_side_stream": check_side, "peak": peak, "report": not self.trusted,
               "hold": held is not None, "anchor_last": anchor}
        if dry_out is not None:
            msg["dry_out"] = dry_out
        places = _sysrand.sample(range(self.slots), len(slots))
        bases = [self.out_base(out_set, k) + _sysrand.randrange(self.shifts) * ALIGN for k in places]
        ends = [self.arena.size if self.shared_io else self.out_base(out_set, k) + self.out_slot for k in places]
        victim, views = None, []
        if clobber and not self.shared_io:
            victim = slots[_sysrand.randrange(len(slots))]
            views = [v for v in self.arena.read(self.m_layouts[victim])
                     if hasattr(v, "is_floating_point") and (v.is_floating_point() or v.is_complex())]
            if self.chain:
                views += self.arena.read(self.scratch_layout(victim))  # what the call read, through the chain
        outside = not self.cuda and COPY_OUTSIDE  # the frame ends before the outputs' copy (below)
        collecting = gc.isenabled()
        gc.disable()  # a collection of the judge's objects is no part of anyone's frame
        try:
            main0, lane_w0 = self.runner.main_schedstat_ms()
            judge_w0 = judge_waited_ms()
            t0 = time.perf_counter()
            reply = self.ask(msg)
            t_back = time.perf_counter()
            if outside:
                # On a CPU the frame ends once the runner is stopped: whatever its threads do after the batch's answer
                # is inside, and nothing of the candidate's runs while its outputs are copied (below, the runner
                # stopped, as the judge's copy always was on a CPU). The copies of an elementwise task's outputs cost
                # as much as its calls (a 1 MiB ReLU output: ~60 us either way on this project's 2-core machine), and
                # inside the frame their noise was the figure's: own 1_ReLU at 0.76-1.19x.
                self.pause()
                t1, judge_w1, (main1, lane_w1) = time.perf_counter(), judge_waited_ms(), self.runner.main_schedstat_ms()
                # The lane's CPU time at the frame's end (own_wait; the candidate's stays stopped while the judge
                # copies): the reference's runner delivers after it, and read after that delivery its copying counted
                # as the lane's other threads' time, taken off eager's run delay (beside two CPU-bound processes
                # eager's frames read ~0.5 ms of delay against the candidate's ~4 ms for the same wait: own copies of
                # 1_ReLU at 1.15-1.75x).
                after = self.runner.cpu_ms()
                w_after = time.perf_counter()
            if self.trusted:
                delivered = self.ask({"cmd": "deliver", "bases": bases})
                if outside:
                    self.pause()
            else:
                delivered = self.fetch(reply, bases, ends)
            t_clob = time.perf_counter()
            if views:
                for v in views:
                    v.fill_(CLOBBER)
            if self.cuda and views:
                timing._synchronize()
            if not outside:
                t1, judge_w1, (main1, lane_w1) = time.perf_counter(), judge_waited_ms(), self.runner.main_schedstat_ms()
        finally:
            if collecting:
                gc.enable()
        self.pause()
        waited = None if None in (lane_w0, lane_w1, judge_w0, judge_w1) else \
            max(0.0, lane_w1 - lane_w0) + max(0.0, judge_w1 - judge_w0)
        if not outside:
            after = self.runner.cpu_ms() if cpu or own else None
            w_after = time.perf_counter()
        if own and waited is not None:
            others = None if None in (before, after, main0, main1) else (after - before) - (main1 - main0)
            waited = own_wait(waited, others)
        if not self.trusted:
            why = self.runner.widened() or (self.spread_check(after - before, (w_after - w_before) * 1000.0)
                                            if None not in (before, after) else "")
            if why:
                self.m_judge.checks.note_protocol(why)
                raise Failure("crash", "the candidate's process left the CPUs the judge gave it: " + why)
        if cpu:
            self.m_lastCpu = after
        if model:
            self._reused(held, small, what)
        claim = reply.get("ms")
        try:
            good = not isinstance(claim, bool) and isinstance(claim, (int, float)) and math.isfinite(claim) \
                and 0.0 <= claim < 1e9
        except (OverflowError, ValueError):
            good = False
        if not good:
            if self.trusted:
                raise Failure("internal_error", "the reference's process sent an invalid time %r" % (str(claim)[:80],))
            self.m_judge.checks.note_protocol("ms = %r is not a number" % (str(claim)[:80],))
            raise Failure("crash", "the candidate's process sent an invalid time")
        layouts = delivered.get("layouts")
        if not isinstance(layouts, list) or len(layouts) != n:
            if self.trusted:
                raise Failure("internal_error", "the reference's process delivered %r outputs" % (str(layouts)[:80],))
            self.m_judge.checks.note_protocol("%s: %r output layouts for %d calls" % (what, str(layouts)[:80], n))
            raise Failure("crash", "the candidate's process delivered other outputs than it was asked for")
        p = reply.get("peak")
        try:
            p = int(p) if isinstance(p, (int, float)) and not isinstance(p, bool) and 0 <= p < 2 ** 50 else -1
        except (OverflowError, ValueError):
            p = -1
        frame = Frame((t1 - t0) * 1000.0, float(claim), layouts, p, cpu_stopped, bases, ends, victim, waited)
        frame.phases = _phases(t0, reply.get("t"), t_back, delivered.get("t"), t_clob, t1, reply.get("ts"))
        return frame
