# SPDX-License-Identifier: MIT
"""The `eval` and `baseline` ops: the judge. It never imports the candidate.

The judge makes every input (seeded, before any candidate code runs), computes the references (strict
fp32, and fp64 where it fits) and assembles the result. Forward calls run in two runner processes of
the same code (runner.py), driven through the same lane (lane.py):

- the **reference's lane** holds only the task's own Model: its batches are the eager baseline, its
  captured batch the CUDA-graph baseline, its dry batches (outputs of the right shapes, no work) the
  plumbing; its outputs are the references of the timed calls;
- the **candidate's lane** imports the candidate.

One clock for every figure: a frame is a batch of n calls back to back on n fresh input sets, timed by
the judge's wall clock from thawing the runner to its answer (the outputs copied out included), the
runner stopped outside frames. A figure is (frame - plumbing) / n, the plumbing being the reference lane's
fastest dry frame (a batch whose forward does nothing) of the evaluation, plus for the candidate's lane the lanes'
offset measured before its import (lane_offset). n is sized
per task so the batch's calls fill ~BATCH_TARGET_MS within a memory bound (one call a frame for big tasks), so
the plumbing's noise is a small part of the frame.
Eager, the CUDA graph and the candidate go through exactly this path, in rounds whose order rotates:

- the task's own code comes out at 1.00x at every size, on a GPU and on a CPU, by construction;
- work a candidate hides anywhere between being thawed and answering is charged to it;
- the runner's own clock is a cross-check (integrity.timing_disagreement, a warning), never the figure;
- outside its frames the candidate's processes are stopped: CPU time they use there is
  integrity.work_while_stopped, GPU work that outlives a frame integrity.lingering_gpu_work;
- every timed call gets a fresh input set, and its outputs are checked against the reference lane's
  (all of them, or a sample the runner cannot know when it computes).
"""
import itertools
import math
import os
import random
import statistics
import time
import traceback

import torch

from . import chain as chain_mod
from . import timing
from .arena import Arena, DeviceArena, nbytes, tensor_bytes
from .channel import log
from .evaluate import (FP64_TRIALS, _err64, _fp32_random_draws, _fwd_seed, _load_task, _nanmax, _read_source,
                       _timing_counts, _Ctx, compare, device_label, empty_result, flatten, strict_fp32, to_device)
from .failures import NO_GPU_REASON, Failure, one_line
from .integrity import JudgeChecks, is_oom, storage_ptr
from .lane import Lane
from .loader import GPU_ONLY, gpu_needs, seed_all
from .runnerclient import RunnerClient, RunnerGone, build_dir_for, place_file, release_build_dirs, runner_cpus

BIG = 256 << 20  # inputs + outputs above this: one set alive at a time, one call a frame, no fp64 copy
BIG_SCALE_REL = 1e-3  # a big task's outputs: max abs error at most this share of their largest magnitude (compare)
CHECK_ALL_BYTES = 256 << 20  # timed outputs checked in full below this many bytes in all
CHECK_SAMPLE = 5
# On a CPU, without a `repeat` asked for: timed rounds enough that a round's frames fill about CPU_TIMED_MS in all,
# from CPU_ROUNDS_MIN to CPU_ROUNDS_MAX (cpu_rounds()).
CPU_TIMED_MS, CPU_ROUNDS_MIN, CPU_ROUNDS_MAX = 1000.0, 15, 45
PROBE_MAX_MS = 200.0  # the sensitivity probe runs the reference up to PROBE_MAX + 1 more times
PROBE_MAX = 4
PROBE_MIN_DIM = 16
FINGERPRINT = 1 << 20  # elements of a big output kept to tell a repeated output from a new one
# Calls in one frame: enough for ~BATCH_TARGET_MS of calls, at most BATCH_MAX, the reference lane's
# inputs and outputs at most BATCH_BYTES (keys: on a GPU).
BATCH_TARGET_MS = {True: 10.0, False: 10.0}
BATCH_MAX = {True: 1024, False: 256}
BATCH_BYTES = {True: 4 << 30, False: 64 << 20}
# A launch-bound task (its CUDA graph's call at most GRAPH_SHARE of eager's): enough calls that the graph's fill
# GRAPH_TARGET_MS of a frame, within eager's frame of at most FRAME_MAX_MS (batch_size).
GRAPH_SHARE, GRAPH_TARGET_MS, FRAME_MAX_MS = 0.5, 40.0, 400.0
CLEAN_ROUNDS = {True: 10, False: 6}  # rounds before the candidate is imported (after WARM_ROUNDS discarded), at least
# On a CPU, more while the clean rounds so far took under CPU_CLEAN_MS (their wall time, draws included), up to
# CPU_CLEAN_MAX (more_clean_rounds()): their dry frames are the lanes' offset.
CPU_CLEAN_MS, CPU_CLEAN_MAX = 600.0, 30
WARM_ROUNDS = {True: 2, False: 1}
BURST_BELOW_MS, BURST_MS, BURST_MAX = 1.0, 3.0, 256  # estimate_call_ms: calls shorter than this timed in bursts
BARE_OUT = [{"shape": [1], "dtype": "float32"}]  # a bare frame's one output a call (a big task's lane offset)
# lane_offset: counted when that share of pairs agree; bounded by this share of the plumbing. The bound was a quarter
# while both lanes delivered alike; the candidate's lane now has the judge's copy (handoff.py), whose cost differs from
# a runner's delivery by design (on four H200s 4.7 ms against a 7.7 ms plumbing at 1,024 calls a frame, before its
# report was made compact), so the offset is structural, measured before the import, and bounded by the plumbing.
LANE_OFFSET_AGREE, LANE_OFFSET_BOUND = 0.75, 1.0
QUIET_MS, QUIET_SHARE = 0.05, 0.02  # quiet(): a frame's run delay up to this much is no other process's doing
QUIET_ROUNDS = 2  # timed rounds run up to this many times `repeat`, until every kind has enough quiet frames
FLOOR_SHARE = 0.02  # a frame is never charged less than this share of itself (a plumbing above the frame)
MEASURE_SHARE = 0.2  # eager's calls are measurable at this share of its frame above the dry frame (measurable())
MEASURE_SPREAD = 2.0  # ... or this many interquartile ranges of the dry frames above them
_sysrand = random.SystemRandom()
# Experiments for the next GPU A/B (tests/gpu/results/s20_residual.md), off by default; neither has had its GPU check:
# KWB_X_ALTERNATE=1 (a fixed order of a round's frames, alternate()); KWB_X_WRITE_BOTH=1 (a big task's candidate inputs
# written right before its frame and its clobbered slot rewritten after it, as the reference's are).
ALTERNATE = os.environ.get("KWB_X_ALTERNATE") == "1"
WRITE_BOTH = os.environ.get("KWB_X_WRITE_BOTH") == "1"
# Mid batching (session 21, the default since session 22; KWB_X_MID_BATCH=0 turns it off for an A/B): on a GPU a set
# past BIG whose calls are short is batched like a small one when the batch's memory bound holds at least MID_MIN_CALLS
# of its calls (mid_batched()). At one call a frame a 0.07 ms ReLU of 144 MiB sat under ~1.1 ms of plumbing: 0.63x,
# 2.36x and 3.38x eager for plain torch.relu in three sessions; KernelBench's big tasks under 2 ms a call came out at
# 0.85-0.92x as their own code. Session 22's A/B on 14 such tasks (tests/gpu/results/s22.md): in 0.95-1.05 25 of 28
# batched, 18 of 28 at one call a frame.
MID_BATCH = os.environ.get("KWB_X_MID_BATCH", "1") == "1"
MID_MIN_CALLS = 2
# KWB_X_MID_CAP_GIB=N (session 22, off, no GPU A/B yet): a mid-batched set's frame within N GiB (at most an eighth of
# the device) instead of BATCH_BYTES' 4 GiB. relu_big (144 MiB, 0.075 ms a call) got 7 calls a frame at 4 GiB, ~0.5 ms
# of work under ~1 ms of plumbing: 0.79-1.12x as an honest copy; at 16 GiB it would get 28 calls, ~2 ms of work.
MID_CAP_BYTES = int(os.environ.get("KWB_X_MID_CAP_GIB", "0") or 0) << 30

_runners = {}  # the pre-started runners of this worker process: "reference", "candidate"


_cpus = []  # the CPUs of this worker's runners (runnerclient.runner_cpus), found once


def _runner_cpus():
    if not _cpus:
        _cpus.append(runner_cpus())
    return _cpus[0]


def keep_apart():
    """The judge's thread off its runners' core where it has another: the two take turns (the judge writes, thaws,
    waits; the runner calls, answers), and on one core each of them waited for the other while it was runnable,
    which the kernel's run delay then counted as if another process had delayed the frame (Frame.waited). Apart,
    a frame's run delay is what other processes cost it. KWB_JUDGE_APART=0 leaves the judge where it is."""
    if os.environ.get("KWB_JUDGE_APART", "1") == "0":
        return
    try:
        cpus = _runner_cpus()
        rest = sorted(set(os.sched_getaffinity(0)) - set(cpus or []))
        if cpus and rest:
            os.sched_setaffinity(0, rest)  # this thread only: the one that times the frames
    except OSError as e:
        log("the judge stays on its CPUs: %s" % e)


def quiet(frame_ms, waited):
    """A frame that no other process delayed: its run delay (Frame.waited) at most QUIET_MS plus QUIET_SHARE of
    it (an idle machine: 0-0.02 ms; beside a CPU-bound process 2-5 ms in a 3-8 ms frame). Unknown counts as quiet."""
    return waited is None or waited <= QUIET_MS + QUIET_SHARE * frame_ms


def _calm(got, n):
    return sum(1 for f, w in zip(got[n], got["waits"][n]) if quiet(f, w))


def selecting(got, names, repeat):
    """Whether the counted frames are chosen by their wait (pick_quiet) for every kind: only where every kind has at
    least a third of `repeat` quiet frames; otherwise every kind counts its first `repeat` frames as they came
    (a machine busy throughout, e.g. evaluations side by side on two cores, where the least delayed of frames that
    nearly all waited put an honest ReLU at 2.30x). One rule for all kinds: a ratio of a chosen figure and an
    unchosen one would lean."""
    return all(_calm(got, n) * 3 >= repeat for n in names)


def more_rounds(got, names, repeat, limit):
    """Whether another timed round is worth its time: some kind has fewer than two thirds of `repeat` quiet frames
    (every kind counts as many quiet frames as the kind with the fewest has, quiet_count()), and at the rate each
    kind's frames have been quiet so far every kind would have a third of `repeat` by `limit` rounds (short of that
    every kind counts its first frames: extra rounds would only cost time)."""
    done = len(got["candidate"])
    if done >= limit:
        return False
    calm = {n: _calm(got, n) for n in names}
    if all(3 * c >= 2 * repeat for c in calm.values()):
        return False
    return all(3 * c * limit >= repeat * done for c in calm.values())


def delay_share(frames, waits):
    """The median share of a kind's frames that its run delay took (Frame.waited / the frame); None: unknown."""
    shares = [w / f for f, w in zip(frames, waits) if w is not None and f > 0]
    return statistics.median(shares) if shares else None


def undelayed(frames, waits, share):
    """Each frame less the part of its run delay (Frame.waited: how long the judge's thread and the runner's main
    thread were runnable but waited for a CPU during it) beyond `share` of the frame, the share of the kind that was
    delayed least (delay_share), never under FLOOR_SHARE of the frame; a frame whose delay is unknown as it is. The
    figures of every kind where too few frames were quiet to choose (selecting()): counted as they came, the kind
    that other processes delayed more leaned the ratio (speed cheat answer_then_work.py clean at 2.16x beside
    test_timing_under_load's burner, 9b828d4: eager delayed in 6 rounds of 6, the candidate in none); kinds delayed
    alike keep their frames as they came (a wall-clock figure: patch_clock_slow_work.py's 8 ms of spinning a call).
    A lane cannot lengthen its own delay (its threads' CPU time is taken off it, lane.own_wait): it can only lower
    the least share, which takes more off the other kinds' frames."""
    return [f if w is None else max(f - max(0.0, w - share * f), FLOOR_SHARE * f) for f, w in zip(frames, waits)]


def pick_quiet(frames, waits, n):
    """The indices (in round order) of the first n quiet frames (selecting() says whether to choose at all; n is
    never more than every kind has, quiet_count()). Chosen by what the kernel says delayed them, never by their
    length."""
    return [i for i, (f, w) in enumerate(zip(frames, waits)) if quiet(f, w)][:n]


def quiet_count(got, names, repeat):
    """How many frames each kind counts where they are chosen by their wait: as many quiet ones as the kind with the
    fewest has, at most `repeat`. Every kind counts the same number of frames, each of them quiet: filling a kind
    short of quiet frames with its least delayed ones while another kind counts quiet frames only leans the ratio
    (an honest ReLU copy at 0.55x beside a CPU-bound process, 22 of its 30 frames delayed against eager's 14).
    selecting() holds, so it is at least a third of `repeat`; the host accepts that many (eval/resultcheck.cpp)."""
    return min([repeat] + [_calm(got, n) for n in names])


def prestart_runner():
    """Starts the two runner processes ahead of the request (called by `serve`)."""
    if os.environ.get("KWB_PRESTART_RUNNER", "1") == "0":
        return
    for role in ("candidate", "reference"):
        if role not in _runners:
            try:
                _runners[role] = RunnerClient().start(role=role, cpus=_runner_cpus())
            except Exception as e:  # started again, and reported, when the request comes
                log("%s runner pre-start failed: %s" % (role, one_line(e)))


def drop_prestarted_runner():
    for role in list(_runners):
        r = _runners.pop(role)
        r.kill()


_current = []  # the runners of the evaluation in progress


def _take_runner(role):
    r = _runners.pop(role, None) or RunnerClient().start(role=role, cpus=_runner_cpus())
    _current.append(r)
    return r


def abort():
    """Kills the runner processes of this worker now (a signal ended the evaluation)."""
    for r in list(_current) + list(_runners.values()):
        try:
            r.kill()
        except Exception:
            pass


def _oom_failure(what, e, ctx, sizes):
    free = ""
    if ctx.device is not None and ctx.device.type == "cuda":
        try:
            f, t = torch.cuda.mem_get_info()
            free = "; device %.1f of %.1f GiB free" % (f / 2 ** 30, t / 2 ** 30)
        except Exception:
            pass
    return Failure("harness_out_of_memory", "the evaluator ran out of memory while %s (%s%s): %s"
                   % (what, sizes, free, one_line(e)))


def run_eval(req, phase, baseline_only=False):
    t0 = time.time()
    res = empty_result(req)
    ctx = _Ctx(req, phase)
    checks = None
    judge = None
    try:
        _load_task(ctx)
        on_gpu = ctx.device.type == "cuda"
        res["device"], res["on_gpu"] = device_label(ctx.device), on_gpu
        checks = JudgeChecks(on_gpu)
        judge = _Judge(ctx, req, res, checks, baseline_only)
        keep_apart()
        judge.run()
    except Failure as f:
        res["status"], res["reason"] = f.status, f.reason
    except BaseException as e:  # a bug of ours, or the judge's own memory
        traceback.print_exc()
        if is_oom(e):
            f = _oom_failure("judging (%s)" % (ctx.phase or "starting"), e, ctx, "")
            res["status"], res["reason"] = f.status, f.reason
        else:
            res["status"], res["reason"] = "internal_error", "%s: %s" % (type(e).__name__, one_line(e))
    finally:
        # The runners die with the evaluation, however it ended (and pre-started ones never used).
        abort()
        del _current[:]
        _runners.clear()
        release_build_dirs()  # once its runners are gone
    if checks is not None and req.get("integrity", True) and not baseline_only:
        try:
            res["runtime_checks"] = checks.verdicts()
        except BaseException:
            traceback.print_exc()
    if not res["profile_note"] and not res["profile"]:
        res["profile_note"] = "not profiled: not requested" if not req.get("profile") else \
            "not profiled: the candidate did not pass"
    log("%s finished in %.2f s: %s (%s)" % ("baseline" if baseline_only else "eval", time.time() - t0, res["status"],
                                          res["reason"]))
    return res


def run_baseline(req, phase):
    """The `baseline` op: the reference's lane alone (eager, its CUDA graph), timed exactly as in `eval`."""
    return run_eval(dict(req, candidate_file=None), phase, baseline_only=True)


def more_clean_rounds(on_gpu, counted, spent_ms):
    """Whether the judge runs another clean round after `counted` of them, which took `spent_ms` of wall time. At
    least CLEAN_ROUNDS; on a CPU more, while they took under CPU_CLEAN_MS, up to CPU_CLEAN_MAX. Their dry frames give
    the lanes' offset (lane_offset), a pair a round: on this 2-core machine the lanes' dry frames differ by ~0.2 ms
    (a 2.4 ms frame of 60 ReLU calls) with pairs scattered by ~0.1-0.2 ms, and from 6 pairs the offset came out
    anywhere in 0-0.31 ms (refused as inconsistent in 4 of 20 evaluations), own copies of 1_ReLU at 0.88-1.10x eager
    (figures' sd 0.06, 51 of 60 in 0.90-1.10 over three runs of 20); from 24-30 pairs it was never refused, 78 of 80
    in 0.90-1.10 over four variants of the rule. A task whose rounds are long keeps its 6 (a ReLU round, its fresh
    inputs drawn, takes ~30 ms); on a GPU the rule is as it was (its check ran on it)."""
    if counted < CLEAN_ROUNDS[on_gpu]:
        return True
    return not on_gpu and counted < CPU_CLEAN_MAX and spent_ms < CPU_CLEAN_MS


def per_call(frames, plumbing, n):
    """The figure of a frame: the frame less its lane's plumbing, over its calls (never less than
    FLOOR_SHARE of the frame: a plumbing measured above a frame is noise, not a free call)."""
    return [max(f - plumbing, FLOOR_SHARE * f) / n for f in frames]


def by_round(cand, eager):
    """The candidate's per-call figures, each read against eager's of the same round and put at eager's median:
    c * median(eager) / e. Within an evaluation the machine's speed drifts over stretches of rounds (on two H200s a
    tiny task's calls ran ~9 us in some stretches and ~13 us in others, eager's and the candidate's alike), and each
    kind's median on its own landed in either stretch: own copies at 0.90-1.10x. Paired, a stretch cancels: over 28
    evaluations of own copies the median of the paired ratios was in 0.95-1.05 for 21, the ratio of the medians for
    18. A candidate whose time does not follow the drift keeps its median (that of c / e is c over eager's median).
    Eager's figures are those reported (capped at the clean rounds' slowest): a candidate that slowed eager's frames
    gains no more here than in eager's figure."""
    mid = statistics.median(eager)
    return [c * mid / e for c, e in zip(cand, eager)]


def baseline_cap(beside, clean, slow=1.0):
    """The most a baseline's per-call figure beside the candidate counts (report_times), or None where it stands as
    measured: the slowest clean round's, times `slow` (candidate_pace), once the median beside the candidate
    is over 1.1 times that. Whatever slowed eager beside the candidate, the speedup does not grow with it."""
    if not clean or not beside:
        return None
    cap = max(clean) * slow
    return cap if statistics.median(beside) > 1.1 * cap else None


def candidate_pace(on_gpu, cand, clean):
    """The factor on the clean rounds' slowest for baseline_cap: how much slower the candidate's own calls ran beside
    the baseline than the baseline's clean rounds (median over median, at least 1; 1 without either). On this 2-core
    machine the speed of everything shifted by 1.7x in the middle of the timed rounds (own 3_Matmul: eager's calls
    and the candidate's 5.8 -> 10.3 ms alike, the dry frames unmoved, the plumbing being no matmul): capped at the
    clean rounds' slowest, eager made an honest copy 0.60x.
    Safe by construction: with the cap the slowest clean round X times this pace (holding once eager's median passes
    1.1 times it), a figure (eager's over the candidate's) never passes 1.1 X over the clean median M by slowing
    eager, and a candidate at the copy's speed that slows eager alone reaches 1.1 X / M without it: no candidate's
    figure goes higher with it than the most one reaches without it (test_worker_units).
    It replaced the slowdown of the reference lane's dry frames (session 19), which a candidate could raise on its
    own: blind red team 16 watched the reference runner's cgroup files (inotify, fanotify, an epoll fan-out), so that
    the judge's own freeze and thaw of that runner slowed its frames, its short dry frames most, and the cap rose over
    a slowed eager: an honest-speed ReLU at 1.7x, a softmax at 2.0x, no flag (tests/data/redteam16).
    On a GPU too since session 23 (KWB_X_CAP_CAND=0 turns it off there): replayed on every committed GPU frame dump
    (1,253 evaluations, tests/bench/replay_frames.py) it puts 735 in 0.95-1.05 against 726; in session 23's check an
    own 22_EfficientNetB0 whose speed, eager's and its own alike, fell by half in the middle of its timed rounds
    (3.2 -> 6 ms a call, another job's on the host) came out at 0.55x under the clean rounds' cap, 1.10x with the
    pace. Its GPU check is the next session's (tests/gpu/results/s23.md)."""
    if not cand or not clean or (on_gpu and os.environ.get("KWB_X_CAP_CAND") == "0"):
        return 1.0
    return max(1.0, statistics.median(cand) / statistics.median(clean))


def capped(beside, clean, slow=1.0):
    """(the per-call figures beside the candidate, each at most baseline_cap's; that cap or None)."""
    cap = baseline_cap(beside, clean, slow)
    return ([min(x, cap) for x in beside] if cap is not None else beside), cap


def paired(timed, eager, cand):
    """Whether the candidate's figures are read round by round against eager's (by_round): both counted from the
    same rounds, one each."""
    rounds = timed.get("rounds") or {}
    return bool(eager) and rounds.get("candidate") is not None and rounds.get("candidate") == rounds.get("eager") \
        and len(eager) == len(cand)


def cpu_rounds(clean):
    """Timed rounds on a CPU where none were asked for: on this 2-core machine, quiet, a tiny task's frames (60 ReLU
    calls, ~4 ms) scatter by 15-20% with no run delay at all (eager's frames of one evaluation 3.6-5.7 ms), and a speed
    shift mid-evaluation halved 3_Matmul's; over 15 rounds the ratio's median moved enough that own copies came out at
    0.70-1.12x, 45-48 evaluations of 50 in 0.90-1.10 (tests/bench/cpu_tiny_band.sh 10). At 45 rounds: 50 then 49 of 50
    (one own 2_Softmax at 0.79x), at 5.2 s an evaluation against ~4 s (a tiny task's round is ~10 ms, and Judge.timed checks 15
    rounds as before). A round is the clean rounds' eager frame twice (eager's and the candidate's) and both lanes' dry
    frames."""
    med = lambda xs: statistics.median(xs) if xs else 0.0  # noqa: E731
    round_ms = 2 * med(clean.get("eager")) + med(clean.get("dry")) + med(clean.get("dry_cand"))
    if round_ms <= 0:
        return CPU_ROUNDS_MIN
    return max(CPU_ROUNDS_MIN, min(CPU_ROUNDS_MAX, int(math.ceil(CPU_TIMED_MS / round_ms))))


def measurable(clean):
    """Whether eager's calls stand out of the plumbing's noise, read from the clean rounds alone (nothing of the
    candidate's exists then, so nothing it does can make a task look unmeasurable): (yes or no, a sentence). Eager's
    calls are the median over the rounds of its frame less the dry frame of the same round; they stand out at
    MEASURE_SHARE of eager's frame or MEASURE_SPREAD interquartile ranges of the dry frames. A task whose call does
    nothing (its output a view of its input) is a frame of plumbing either way: on this 2-core CPU its own copy came
    out anywhere in 0.6-7.5x eager. Over 20 evaluations of such a task none stood out (at most 15% of the frame,
    2.0 ranges), against all but 2 of 405 evaluations of real tasks dumped on H100s, H200s and this CPU (at least 15%
    of the frame, 0.8-212 ranges; the two, 95_CrossEntropyLoss at one call a frame on an H200, at 15% and 1.4-1.8
    ranges). Only integrity.implausible_speedup reads it: above its bound such a figure cannot tell.
    Only rounds whose eager and dry frames no other process delayed count (quiet(); on a GPU every one): on this CPU
    beside other processes the dry frames' range was 6-10 ms against a 0.6 ms quiet frame, and a batch-fusing cheat
    on a 16x16 ReLU at 13x was told "cannot tell" (blind red team 9). Fewer than 3 such rounds: eager's fastest frame
    against the fastest dry frame, by MEASURE_SHARE alone (the least delayed of each; that cheat's task: 45%)."""
    waits = clean.get("waits") or {}
    eager, dry = clean.get("eager") or [], clean.get("dry") or []
    if len(eager) < 3 or len(dry) < 3:
        return True, "too few clean rounds to tell"
    we, wd = waits.get("eager") or [None] * len(eager), waits.get("dry") or [None] * len(dry)
    pairs = [(e, d) for e, d, a, b in zip(eager, dry, we, wd) if quiet(e, a) and quiet(d, b)]
    if len(pairs) < 3:
        calls = min(eager) - min(dry)
        return calls >= MEASURE_SHARE * min(eager), "eager's fastest clean frame %.4f ms above the fastest dry " \
            "frame's %.4f ms (%.0f%% of it; too few clean rounds no other process delayed)" % (
                calls, min(dry), 100 * calls / min(eager))
    eager, dry = [e for e, _ in pairs], [d for _, d in pairs]
    calls = statistics.median([e - d for e, d in pairs])
    share = calls / statistics.median(eager)
    q = statistics.quantiles(dry, n=4)
    spread = q[2] - q[0]
    text = "eager's calls %.4f ms a frame above the dry frame's %.4f ms (%.0f%% of its frame; the dry frames' " \
           "interquartile range %.4f ms)" % (calls, statistics.median(dry), 100 * share, spread)
    return share >= MEASURE_SHARE or calls >= MEASURE_SPREAD * spread, text


def alternate(names, big, timed):
    """KWB_X_ALTERNATE=1 (an experiment, off by default: a fixed order tells a candidate which frame follows its own,
    so the catalogue must pass again before it could be the default): an order of a round's frames in which every
    frame a figure compares follows a frame of the other lane's runner (both runners share one core). Drawn each
    round, eager followed its own lane's frame in half the timed rounds and the candidate in none (one frame a
    round); such a frame ran 0.10-0.16 ms faster in session 20's dumps, and the offset's pairs did so in 49% (bare)
    and 24% (bare_cand) of the clean rounds. Timed: the reference's first frame (a big task's dry frame, else the
    graph where there is one), the candidate, eager, the rest. Clean: big dry, bare_cand, bare, dry_cand, eager;
    small eager, dry_cand, dry, then the rest. Names not listed keep their place at the end."""
    if timed:
        first = "dry" if big or "graph" not in names else "graph"
        head = [first, "candidate", "eager"]
    else:
        head = ["dry", "bare_cand", "bare", "dry_cand", "eager"] if big else ["eager", "dry_cand", "dry"]
    return [n for n in head if n in names] + [n for n in names if n not in head]


def offset_pairs(clean):
    """The clean rounds' paired differences of the two lanes' dry frames (dry_cand - dry), where no other process
    delayed either frame (quiet): what lane_offset() reads."""
    dry, cand = clean.get("dry") or [], clean.get("dry_cand") or []
    waits = clean.get("waits") or {}
    wd, wc = waits.get("dry") or [None] * len(dry), waits.get("dry_cand") or [None] * len(cand)
    return [c - d for d, c, a, b in zip(dry, cand, wd, wc) if quiet(d, a) and quiet(c, b)]


def lane_offset(clean, plumbing=None):
    """How much longer the candidate lane's plumbing is than the reference lane's, measured before the
    candidate was imported: the median over the clean rounds of the two lanes' dry frames of the same round
    (paired, so that a drift of the machine between rounds cancels). The two runners run the same code on the
    same core, yet on an H100 the candidate lane's dry frames came out 0.02-0.43 ms longer in 12 evaluations
    of 12: charged to the candidate, that was 3-8% of a 5 us kernel's frame (own copies at 0.90-0.94x).
    Nothing of the candidate's exists when it is measured. Counted only where it is consistent (the pairs'
    sign agrees with the median's in at least LANE_OFFSET_AGREE of them: on a loaded machine the pairs scatter
    either side by milliseconds) and at most LANE_OFFSET_BOUND of the plumbing (`plumbing`, default the fastest
    of the reference lane's frames given); otherwise 0."""
    dry = clean.get("dry") or []
    pairs = offset_pairs(clean)
    if len(pairs) < 3:
        return 0.0
    mid = statistics.median(pairs)
    agree = sum(1 for x in pairs if x * mid > 0) >= LANE_OFFSET_AGREE * len(pairs)
    if mid == 0 or not agree:
        return 0.0
    bound = LANE_OFFSET_BOUND * (min(dry) if plumbing is None else plumbing)
    return max(-bound, min(bound, mid))


def gpu_batch_cap(total, set_bytes, mid_cap=None):
    """The bytes a GPU frame's sets may take on a device of `total` bytes: BATCH_BYTES, 4 GiB on an 80 GB H100 (1 GiB
    put 12_Matmul_with_diagonal_matrices_ at 3 calls a frame against 1.2 ms of plumbing: 0.81-1.26x as its own copy;
    0.91-1.09x at 4 GiB), a sixteenth of a smaller device; for a mid-batched set (past BIG) up to KWB_X_MID_CAP_GIB
    within an eighth of the device, where that is set."""
    cap = min(BATCH_BYTES[True], total // 16)
    mid_cap = MID_CAP_BYTES if mid_cap is None else mid_cap
    if mid_cap and set_bytes > BIG:
        cap = max(cap, min(mid_cap, total // 8))
    return cap


class _Judge:
    def __init__(self, ctx, req, res, checks, baseline_only=False):
        self.ctx, self.req, self.res, self.checks = ctx, req, res, checks
        self.baseline_only = baseline_only
        self.on_gpu = res["on_gpu"]
        self.atol, self.rtol = res["atol"], res["rtol"]
        self.ref = self.cand = None
        self.notes = []
        self.ref_peak = -1
        self.cand_model_bytes = 0
        self.err64 = None
        self.err64_at = -1.0  # the largest difference from the reference of a timed call checked against fp64 so far
        self.err64_far = None  # (candidate, reference) errors against fp64 on those calls
        self.out_scale = 0.0
        self.reseed = False
        self.K = 1
        self.mid = False  # a set past BIG batched all the same (KWB_X_MID_BATCH: mid_batched())
        self.chain = None  # chain.plan() with the chained input's bytes: call k's input from call k-1's output
        self.graph = False
        self.ref_reachable = False  # the candidate's process runs as the judge's user and is loaded: it could
        self.device_draws = True
        self.flusher = timing.L2Flusher(ctx.device) if self.on_gpu else None
        self.m_tick = torch.zeros(1, device=ctx.device) if self.on_gpu else None
        self.m_t, self.m_stages = time.time(), []
        self.m_threads = {}  # stage -> lane -> RunnerClient.thread_stats() (KWB_FRAMES_DUMP)

    def stage(self, name):
        """Where the evaluation's time goes (logged at the end); with KWB_FRAMES_DUMP, the runners' threads then."""
        if name and os.environ.get("KWB_FRAMES_DUMP"):
            self.m_threads[name] = {lane.name: lane.runner.thread_stats() for lane in (self.ref, self.cand)
                                    if lane is not None}
        now = time.time()
        if name:
            self.m_stages.append((name, now - self.m_t))
        self.m_t = now

    def memory_context(self):
        try:
            f, t = torch.cuda.mem_get_info()
            return " (judge holds %.2f GiB; device %.1f of %.1f GiB free)" % (
                torch.cuda.memory_reserved() / 2 ** 30, f / 2 ** 30, t / 2 ** 30)
        except Exception:
            return ""

    # ---- inputs and references -------------------------------------------------------------------
    def trial_inputs(self, trial):
        """Trial t's inputs, seeded as KernelBench. Big sets are drawn on the device (same seeds, the
        device's generator)."""
        try:
            seed_all(self.ctx.seed + trial)
            if (self.big or self.mid) and self.on_gpu:
                with self.ctx.device:
                    return [x for x in self.ctx.task.get_inputs()]
            return [x for x in self.ctx.task.get_inputs()]
        except BaseException as e:
            if is_oom(e):
                raise _oom_failure("drawing the inputs of trial %d" % trial, e, self.ctx, "")
            raise Failure("internal_error", "the task's get_inputs() failed: %s: %s" % (type(e).__name__, one_line(e)))

    def fresh_inputs(self, n=None):
        """Input sets nobody can predict (timed calls): the task's own generator, seeded afresh from the OS's
        random source, drawing set after set (n of them; None: one set, not in a list). On a GPU drawn on the
        device (torch's default device set to it): a 64 MB randn costs half a second on a host and a few
        microseconds there, and every round draws a new set for every call."""
        seed_all(_sysrand.randrange(1 << 62))
        count = 1 if n is None else n
        try:
            if self.on_gpu and self.device_draws:
                try:
                    with self.ctx.device:
                        sets = [list(self.ctx.task.get_inputs()) for _ in range(count)]
                    return sets[0] if n is None else sets
                except (TypeError, AttributeError):  # torch without device context managers
                    self.device_draws = False
            sets = [list(self.ctx.task.get_inputs()) for _ in range(count)]
            return sets[0] if n is None else sets
        except BaseException as e:
            if is_oom(e):
                raise _oom_failure("drawing a fresh input set", e, self.ctx, "")
            raise

    def reference(self, inputs, fwd_seed, measure=False):
        dev = [to_device(x, self.ctx.device) for x in inputs]
        try:
            with torch.no_grad():
                strict_fp32()
                seed_all(fwd_seed)
                if measure and self.on_gpu:
                    torch.cuda.synchronize()
                    torch.cuda.reset_peak_memory_stats()
                    before = torch.cuda.memory_allocated()
                if measure:
                    rng = _rng_states(self.on_gpu)
                out = flatten(self.ctx.ref_model(*dev))
                if measure:
                    # A task whose own output is a view of its input (a reshape, a flatten): an own copy's output
                    # shares storage with its input too, which is no sign of anything (integrity.output_aliasing).
                    ins = {storage_ptr(x) for x in dev if isinstance(x, torch.Tensor)}
                    self.checks.note_reference_aliases(any(isinstance(o, torch.Tensor) and storage_ptr(o) in ins
                                                           for o in out))
                    # A forward that draws random numbers (35_LSTM's h0/c0) is seeded before every call of a
                    # batch, in both lanes, so each call's draws match its reference's.
                    self.reseed = not all(torch.equal(a, b) for a, b in zip(rng, _rng_states(self.on_gpu)))
                if measure and self.on_gpu:
                    torch.cuda.synchronize()
                    self.ref_peak = (torch.cuda.max_memory_allocated() - before) + self.model_bytes(self.ctx.ref_model) \
                        + self.in_bytes
        except BaseException as e:
            if is_oom(e):
                raise _oom_failure("computing the reference", e, self.ctx,
                                   "inputs %.2f GiB" % (self.in_bytes / 2 ** 30))
            raise
        del dev
        return [x.detach() if isinstance(x, torch.Tensor) else x for x in out]

    @staticmethod
    def model_bytes(model):
        if not isinstance(model, torch.nn.Module):
            return 0
        return sum(nbytes(p) for p in model.parameters()) + sum(nbytes(b) for b in model.buffers())

    @staticmethod
    def out_bytes_of(values):
        return sum(nbytes(x) for x in values if isinstance(x, torch.Tensor))

    def fp64_check(self, trial, inputs, ref32, cand, fwd_seed=None):
        """Error of the candidate and of the fp32 reference against fp64, where it fits."""
        if self.big:
            # An fp64 copy of a big task's data would take the evaluator far past the reference's own
            # footprint; the fp32 comparison at atol/rtol stands (it already refuses fp16/bf16/TF32 here).
            self.memory_note("fp64 check skipped: inputs and outputs of %.2f GiB (in fp64 they would double)"
                             % ((self.in_bytes + self.out_bytes) / 2 ** 30))
            return None
        need = 2 * (self.model_bytes(self.ctx.ref_model) + self.in_bytes + max(self.ref_peak, 0) + self.out_bytes)
        where = self.ctx.device
        if self.on_gpu:
            free, _ = torch.cuda.mem_get_info()
            if need * 1.3 > free:
                where = torch.device("cpu")
                if trial == 0:
                    self.memory_note("fp64 check on the CPU: it needs ~%.1f GiB, the device had %.1f free"
                                     % (need / 2 ** 30, free / 2 ** 30))
        try:
            model64 = _deepcopy_to(self.ctx.ref_model, where).double()
            with torch.no_grad(), _fp32_random_draws():
                seed_all(_fwd_seed(self.ctx, trial) if fwd_seed is None else fwd_seed)
                ref64 = flatten(model64(*[to_device(c, where, torch.float64) for c in inputs]))
            e_c = _err64(ref64, cand)
            e_r = _err64(ref64, ref32)
            scale = max([float(r.abs().max()) for r in ref64 if isinstance(r, torch.Tensor) and r.numel()] or [1.0])
            del model64, ref64
        except BaseException as e:
            if is_oom(e):
                self.memory_note("fp64 check skipped: out of memory (%s)" % one_line(e, 120))
                return None
            raise
        if not e_r <= 1e-3 * max(1.0, scale):
            raise ValueError("the fp32 reference is %.3g from it: not comparable (random draws in forward?)" % e_r)
        self.out_scale = max(self.out_scale, scale)
        return e_c, e_r

    def compare(self, ref, outs):
        """compare() on the judge's device, or on the host when the device is full (a candidate that
        hoards memory must not turn its wrong answer into the harness's out-of-memory)."""
        try:
            return compare(ref, outs, self.atol, self.rtol, self.ctx.device, self.scale_rel())
        except BaseException as e:
            if not is_oom(e):
                raise
            if self.on_gpu:
                torch.cuda.empty_cache()
            self.memory_note("outputs compared on the host: the device was full")
            return compare(ref, outs, self.atol, self.rtol, torch.device("cpu"), self.scale_rel())

    def scale_rel(self):
        """A big task has no fp64 check (fp64_check): its outputs' errors are also held to BIG_SCALE_REL of their
        own largest magnitude, so that atol cannot hide a 7% error in every element of outputs of 4e-6
        (red team 4's cheat_atol_budget_softmax.py on KernelBench 23_Softmax: a one-pass estimate)."""
        return BIG_SCALE_REL if self.big else None

    def compare_batch(self, refs, outs):
        """(kind, max abs err, the call that has it) of a round's calls compared at once: each output position's
        values of every call laid end to end (one comparison instead of one per call, for batches of hundreds of
        tiny calls). "ok", or "recheck" when anything differs or the calls' outputs are not alike (then each call
        is compared on its own, which says which)."""
        if len(refs) == 1 or any(len(r) != len(refs[0]) for r in refs) or any(len(o) != len(refs[0]) for o in outs):
            return "recheck", None, None
        worst, diffs = 0.0, None
        try:
            for i in range(len(refs[0])):
                rs, cs = [r[i] for r in refs], [o[i] for o in outs]
                if not all(isinstance(x, torch.Tensor) for x in rs + cs) or \
                        any(c.shape != rs[0].shape or c.dtype != rs[0].dtype for c in rs + cs):
                    return "recheck", None, None
                r_all, c_all = torch.cat([r.reshape(-1) for r in rs]), torch.cat([c.reshape(-1) for c in cs])
                kind, m, _, _ = self.compare([r_all], [c_all])
                if kind != "ok":
                    return "recheck", None, None
                worst = _nanmax(worst, m)
                if rs[0].numel() and (rs[0].is_floating_point() or rs[0].is_complex()):
                    d = (c_all - r_all).abs().view(len(cs), -1).amax(1).double()
                    diffs = d if diffs is None else torch.maximum(diffs, d)
        except BaseException as e:
            if is_oom(e):
                return "recheck", None, None
            raise
        return "ok", worst, (int(diffs.argmax()) if diffs is not None else None)

    def memory_note(self, text):
        if text not in self.res["memory_note"]:
            self.res["memory_note"] = "; ".join(x for x in (self.res["memory_note"], text) if x)

    # ---- steps ------------------------------------------------------------------------------------
    def run(self):
        ctx, req, res = self.ctx, self.req, self.res
        source = _read_source(req["candidate_file"]) if not self.baseline_only else ""
        needs = gpu_needs(source) if source else []
        gpu_only = [n for n in needs if n in GPU_ONLY]
        if not self.on_gpu and gpu_only:
            raise Failure("no_gpu", "%s (the candidate uses %s)" % (NO_GPU_REASON, " and ".join(gpu_only)))
        n_trials = max(1, int(req.get("trials", 5)))
        init = list(ctx.init_inputs)
        if any(isinstance(x, torch.Tensor) for x in init):
            raise Failure("internal_error", "tasks whose get_init_inputs() returns tensors are not supported yet")
        if self.baseline_only:
            ctx.set_phase("running")

        # Trial 0's inputs and reference, before any candidate code runs: their sizes decide how the
        # evaluation fits the device (big sets: one set and one reference alive at a time, one call a frame).
        self.big = self.probe_input_bytes() > BIG
        first = self.trial_inputs(0)
        self.in_bytes = tensor_bytes(first)
        self.big = self.in_bytes > BIG
        ref0 = self.reference(first, _fwd_seed(ctx, 0), measure=True)
        self.out_bytes = tensor_bytes(ref0)
        self.out_shapes = [{"shape": list(x.shape), "dtype": str(x.dtype).replace("torch.", "")}
                           for x in ref0 if isinstance(x, torch.Tensor)]
        self.big = self.in_bytes + self.out_bytes > BIG
        if self.big and self.on_gpu and MID_BATCH:
            self.mid = self.mid_batched(first)
            self.big = not self.mid
        self.res["reference_peak_bytes"] = self.ref_peak
        probe_inputs = [x.detach().cpu() if isinstance(x, torch.Tensor) else x for x in first] \
            if not self.big and not self.baseline_only else None
        if self.big:
            del ref0
            ref0 = None
            self.memory_note("inputs and outputs of %.2f GiB: one set alive at a time, one call a frame, on the %s"
                             % ((self.in_bytes + self.out_bytes) / 2 ** 30, "device" if self.on_gpu else "host"))
            sets = refs = None
        elif not self.baseline_only:
            sets = [first] + [self.trial_inputs(t) for t in range(1, n_trials)]
            refs = [ref0] + [self.reference(sets[t], _fwd_seed(ctx, t)) for t in range(1, n_trials)]
        self.chain = self.chain_plan(first, ref0)
        self.graph = self.on_gpu and req.get("graph_baseline", True) and req.get("baselines", True) is not False
        call_ms = self.estimate_call_ms(first)
        self.K = self.batch_size(call_ms, self.estimate_graph_ms(first, call_ms))
        if self.K < 2:
            self.chain = None
        elif self.chain:
            log("calls chained: input %d of call k scaled from output %d%s of call k-1" % (
                self.chain["arg"], self.chain["out"], self.chain["at"]))

        ctx.set_phase("loading_candidate" if not self.baseline_only else "running")
        self.stage("references")
        self.open_lanes()
        self.stage("runners ready")
        self.ref.ask({"cmd": "reference", "task": place_file(req["task_file"], self.ref.runner.home,
                                                             self.ref.runner.m_uid, "kwb_task_reference.py"),
                      "init": init, "seed": ctx.seed})
        self.clean = self.clean_rounds(first if self.big else None)
        self.stage("clean rounds")
        if self.baseline_only:
            self.report_baseline()
            return

        cand_path = place_file(req["candidate_file"], self.cand.runner.home, self.cand.runner.m_uid)
        builds = build_dir_for(source.encode("utf-8", "surrogateescape"), self.cand.runner.m_uid) if needs else None
        self.stage("")
        self.cand.runner.pin(False)  # its import may build extensions: on the judge's CPUs
        self.ref_reachable = self.cand.runner.m_uid is None  # from its import on, as the judge's user
        setup = self.cand.ask({"cmd": "setup", "candidate": cand_path, "init": init, "seed": ctx.seed,
                               "needs_gpu": bool(needs), "extensions_dir": builds})
        self.cand.pause()
        self.cand.runner.pin()
        mb = setup.get("model_bytes")
        self.cand_model_bytes = int(mb) if isinstance(mb, int) and not isinstance(mb, bool) and 0 <= mb < 2 ** 50 else 0
        if self.on_gpu:
            torch.cuda.empty_cache()  # what the judge does not need is the candidate's to use

        if self.big:
            trials = _LazyTrials(self, n_trials, first)
            del first
        else:
            trials = list(zip(sets, refs))
            del sets, refs, first, ref0
        self.stage("candidate loaded")
        self.correctness(trials)
        self.stage("trials")
        del trials
        self.timed()
        self.stage("timed rounds")

        res["status"] = "ok"
        summary = "correct in %d trials and %d checked timed calls (max abs err %.3g)" % (
            n_trials, self.checked_timed, res["max_abs_err"] if res["max_abs_err"] is not None else 0.0)
        if res["eager"]["samples"]:
            summary += "; %.2fx vs eager" % (res["eager"]["median_ms"] / res["candidate"]["median_ms"])
        if res["graph"]["samples"]:
            summary += ", %.2fx vs CUDA graph" % (res["graph"]["median_ms"] / res["candidate"]["median_ms"])
        if not self.on_gpu:
            summary += " (CPU timings)"
        res["reason"] = "; ".join([summary] + self.notes)

        if req.get("integrity", True) is not False:
            self.probe_sensitivity(probe_inputs)
            self.stage("sensitivity probe")
        log("stages (s): " + ", ".join("%s %.2f" % x for x in self.m_stages))

        if req.get("profile"):
            ctx.set_phase("profiling")
            from .profile import profile_candidate

            res["profile"], res["profile_note"] = profile_candidate(req, self.on_gpu)

    def probe_input_bytes(self):
        """Bytes of one input set, from shapes alone where torch can (meta tensors), else -1."""
        try:
            with torch.device("meta"):
                return tensor_bytes(list(self.ctx.task.get_inputs()))
        except BaseException:
            return -1

    def mid_batched(self, first):
        """Whether a set past BIG is batched all the same (KWB_X_MID_BATCH, on a GPU): when its call is short enough
        and its inputs and outputs small enough that batch_size() gives it at least MID_MIN_CALLS calls a frame
        within the batch's memory bound. Its trial sets are then drawn on the device as a big task's are; it keeps
        an fp64 check and its trials' references as a small task does."""
        self.big = False
        try:
            call_ms = self.estimate_call_ms(first)
            k = self.batch_size(call_ms)
        finally:
            self.big = True
        if k < MID_MIN_CALLS:
            return False
        self.memory_note("inputs and outputs of %.2f GiB, %.3f ms a call: batched on the device all the same "
                         "(KWB_X_MID_BATCH)" % ((self.in_bytes + self.out_bytes) / 2 ** 30, call_ms or 0.0))
        return True

    def estimate_call_ms(self, inputs):
        """A rough length of one call of the task's own code, in the judge (only to size the batch; never a
        figure): the fastest of three calls after one, each waited for; for a short call, the fastest of two
        bursts of calls back to back over the burst, as the runner makes them (waiting for each 5 us kernel
        doubled its length: frames held half the calls they were sized for)."""
        if self.big:
            return None
        dev = [to_device(x, self.ctx.device) for x in inputs]

        def burst(n):
            seed_all(_fwd_seed(self.ctx, 0))
            if self.on_gpu:
                timing._synchronize()
            t0 = time.perf_counter()
            for _ in range(n):
                self.ctx.ref_model(*dev)
            if self.on_gpu:
                timing._synchronize()
            return (time.perf_counter() - t0) * 1000.0 / n

        try:
            with torch.no_grad():
                burst(1)  # the first call pays for what is made once
                best = min(burst(1) for _ in range(3))
                if best < BURST_BELOW_MS:
                    n = max(2, min(BURST_MAX, int(BURST_MS / max(best, 1e-3))))
                    best = min(best, min(burst(n) for _ in range(2)))
        except BaseException as e:
            if is_oom(e):
                raise _oom_failure("running the reference", e, self.ctx, "")
            raise
        return best

    def chain_plan(self, first, ref0):
        """The chain between a batch's calls (chain.py), only with KWB_CHAIN=1 and where a batch can have several
        calls. Not on by default: on an H100 (c64c02b) it caught every batch-fusion cheat, but its two launches a
        call (~28 us of host time in Python) are plumbing that overlaps a real call's device time and a dry call's
        does not, so a kernel shorter than that is timed by its launch alone (hand-written Triton fused chain
        4.12x eager against 2.6-2.9x, a linear 0.85x against 1.06x). See PROTOCOL.md."""
        want = os.environ.get("KWB_CHAIN", "")
        if self.big or ref0 is None or want != "1":
            return None
        got = chain_mod.plan(first, ref0, _sysrand.randrange)
        if got is not None:
            got["bytes"] = nbytes(first[got["arg"]])
        return got

    def as_called(self, sets, refs, k):
        """The inputs call k of a batch got: set k, with the chained input scaled from the reference lane's output
        of call k-1 (refs), as its runner did it (chain.py); the same op on the same device, so the same bits."""
        if self.chain is None or k == 0:
            return sets[k]
        c = self.chain
        got = list(sets[k])
        o = refs[k - 1][c["out"]][tuple(c["at"])]
        got[c["arg"]] = chain_mod.scaled(to_device(got[c["arg"]], o.device), o, chain_mod.magnitude(o, c["c"]), c["amp"])
        return got

    def estimate_graph_ms(self, inputs, call_ms):
        """A rough length of one replay of the task's own code captured in a CUDA graph, in the judge (only to size
        the batch; never a figure), for a call of a millisecond or more on a GPU: the fastest of three replays, each
        waited for. None where there is no graph baseline or the capture fails (the reference lane's own capture
        then says why)."""
        if not self.graph or self.big or not call_ms or call_ms < BURST_BELOW_MS:
            return None
        dev = [to_device(x, self.ctx.device) for x in inputs]
        try:
            with torch.no_grad():
                seed_all(_fwd_seed(self.ctx, 0))
                side = torch.cuda.Stream()
                side.wait_stream(torch.cuda.current_stream())
                with torch.cuda.stream(side):
                    self.ctx.ref_model(*dev)  # the warm-up a capture needs, on a stream of its own
                torch.cuda.current_stream().wait_stream(side)
                graph = torch.cuda.CUDAGraph()
                with torch.cuda.graph(graph):
                    self.ctx.ref_model(*dev)

                def replay_ms():
                    t0 = time.perf_counter()
                    graph.replay()
                    timing._synchronize()
                    return (time.perf_counter() - t0) * 1000.0

                replay_ms()  # the first replay pays for what is made once
                return min(replay_ms() for _ in range(3))
        except Exception as e:  # noqa: BLE001 (only the batch's size depends on it)
            log("no CUDA-graph estimate for the batch's size: %s: %s" % (type(e).__name__, str(e)[:200]))
            return None

    def batch_size(self, call_ms, graph_ms=None):
        """Calls per frame: enough that the frame holds ~BATCH_TARGET_MS of calls, so the plumbing's noise is a
        small part of it, within BATCH_MAX and the reference lane's BATCH_BYTES (its inputs and two sets of
        outputs, and the CUDA graph's copies of them). For a launch-bound task, whose CUDA graph (`graph_ms`, a
        call) takes at most GRAPH_SHARE of eager's time, enough that the graph's calls fill GRAPH_TARGET_MS, with
        eager's frame at most FRAME_MAX_MS: a candidate as fast as the graph has a frame of its own calls, not of
        plumbing. 39_GRU (eager 45 ms, graph 7 ms on an H200) at one call a frame came out at 2.99x the graph, its
        candidate's 1.7 ms call under ~1.7 ms of plumbing whose noise and lane offset weigh as much as the call; at
        6 calls a frame 3.78x, against 3.85x in an independent CUDA-event harness."""
        if os.environ.get("KWB_BATCH"):
            want = int(os.environ["KWB_BATCH"])
        elif self.big or not call_ms or call_ms <= 0:
            return 1
        else:
            want = int(math.ceil(BATCH_TARGET_MS[self.on_gpu] / call_ms))
            if graph_ms and 0 < graph_ms <= GRAPH_SHARE * call_ms:
                want = max(want, min(int(math.ceil(GRAPH_TARGET_MS / graph_ms)), int(FRAME_MAX_MS // call_ms)))
                log("launch-bound: eager %.3f ms a call, its CUDA graph %.3f ms: %d call(s) a frame"
                    % (call_ms, graph_ms, want))
        per_call = Lane.size_for(1, self.in_bytes, self.out_bytes, 3, False, self.chain)
        cap = BATCH_BYTES[self.on_gpu]
        if self.on_gpu:
            cap = gpu_batch_cap(torch.cuda.get_device_properties(torch.cuda.current_device()).total_memory,
                                self.in_bytes + self.out_bytes)
        return max(1, min(want, BATCH_MAX[self.on_gpu], cap // per_call))

    def make_arena(self, size):
        """Device memory on a GPU when the driver can export it, host memory (a sealed memfd) otherwise."""
        if self.on_gpu and os.environ.get("KWB_NO_DEVICE_ARENA") != "1":
            try:
                return DeviceArena(size)
            except Exception as e:
                if is_oom(e) or "OUT_OF_MEMORY" in str(e):
                    raise _oom_failure("making a runner's arena", e, self.ctx, "%.2f GiB" % (size / 2 ** 30))
                self.memory_note("inputs and outputs travel through host memory: the device's memory could not "
                                 "be shared (%s)" % one_line(e, 120))
        try:
            return Arena(size, name="kwb-arena")
        except (OSError, ValueError) as e:
            raise _oom_failure("making a runner's arena", e, self.ctx, "%.2f GiB" % (size / 2 ** 30))

    def open_lanes(self):
        """The two runners (pre-started), each with an arena of its own: the reference's (K input slots, an output
        set for eager and one for the graph and the dry batches; a big task's outputs go where its inputs were)
        and the candidate's (K input slots, one output set, always apart from the inputs: the judge reads the
        inputs back after a call)."""
        K, dev = self.K, self.ctx.device
        ref_size = Lane.size_for(K, self.in_bytes, self.out_bytes, 2, self.big, self.chain)
        ref_runner = _take_runner("reference")
        cand_runner = _take_runner("candidate") if not self.baseline_only else None
        self.ref = Lane("reference", ref_runner, self.make_arena(ref_size), dev, K, self.in_bytes, self.out_bytes,
                        2, self.big, True, self, self.chain)
        if cand_runner is not None:
            cand_size = Lane.size_for(K, self.in_bytes, self.out_bytes, 1, False, self.chain)
            self.cand = Lane("candidate", cand_runner, self.make_arena(cand_size), dev, K, self.in_bytes,
                             self.out_bytes, 1, False, False, self, self.chain)
        for lane in (self.ref, self.cand):
            if lane is None:
                continue
            try:
                info = lane.runner.wait_ready()
            except RunnerGone as e:
                raise Failure("internal_error", "the %s's process could not start: %s" % (lane.name, e.why))
            if lane.runner.note and lane is self.cand:
                self.checks.note_isolation(lane.runner.note)
            if self.on_gpu and not info.get("cuda"):
                raise Failure("internal_error", "the %s's process sees no GPU although the judge does" % lane.name)
            lane.open()
            lane.pause()
            lane.runner.pin()

    # ---- rounds ---------------------------------------------------------------------------------------
    def draws(self, n):
        """n fresh input sets (a big task: its one set, drawn anew)."""
        return self.fresh_inputs(n)

    def wait_of(self, frame):
        """A frame's run delay as quiet() reads it: on a CPU Frame.waited; on a GPU None (every frame counts). There
        the runners' core is one of many and another process rarely shares it, but the runner's own CUDA threads
        and the core's wake-up from sleep do: on an H100 every frame of every kind, dry ones included, waited
        0.13-0.25 ms, and chosen by that wait the figures moved (95_CrossEntropyLoss's own copy 0.77x, against
        0.91-0.92x counting every frame)."""
        return None if self.on_gpu else frame.waited

    def idle_ms(self):
        """How long a tiny kernel of the judge's takes now (GPU): a context with work still running makes it
        wait for a time slice (~2 ms on an H100, against ~0.02 ms on an idle GPU)."""
        if not self.on_gpu:
            return None
        timing._synchronize()
        t0 = time.perf_counter()
        self.m_tick.add_(1)
        timing._synchronize()
        return (time.perf_counter() - t0) * 1000.0

    def ref_frame(self, mode, sets, what, phase):
        """A frame of the reference's lane: eager (output set 0), its CUDA graph or a dry batch (set 1). A big
        task's outputs overwrite its inputs: its one set is written again before each frame."""
        if self.big:
            self.ref.write(sets)
        fwd = _fwd_seed(self.ctx, 0)
        f = self.ref.frame(len(sets) if not self.big else 1, what, phase, fwd, mode=mode,
                           out_set=0 if mode == "model" else 1, reseed=self.reseed,
                           dry_out=self.out_shapes if mode == "dry" else None, clobber=not self.big)
        if f.clobbered is not None:
            self.ref.write([sets[f.clobbered]], slots=[f.clobbered])  # the round's next frames read that set
        return f

    def capture_graph(self, sets):
        """The CUDA-graph baseline: the reference lane captures its batch (on its input slots) in one graph."""
        if not self.graph:
            return False
        try:
            self.ref.write(sets)
            self.ref.ask({"cmd": "graph", "n": len(sets), "seed": _fwd_seed(self.ctx, 0)})
            self.ref.pause()
            return True
        except Failure as f:
            if f.status == "internal_error" and "the reference's process died" in f.reason:
                raise
            self.notes.append("graph baseline unavailable: " + f.reason)
            log(self.notes[-1])
            self.graph = False
            return False

    def round_frames(self, i, names, sets, what, phase):
        """One round's frames, in an order drawn afresh each round (whatever a frame's place or its neighbour
        costs, every kind pays it alike; a rotation kept the candidate right after eager in three rounds of
        four); a big task's dry frame comes first (its outputs overwrite the inputs, and the eager outputs are
        the references of the round). The judge's tiny kernel runs after each frame. The candidate's process runs
        in its own frame only: a frame of its runner after its calls and before the judge has read their outputs
        let a thread of it finish them there (race_after_delivery.py, clean at 1.40x when "rhythm" frames of its
        lane, a dry batch to even the lanes' turns, could follow its calls), and one before its calls, with the
        round's inputs written, would let it work on them unclocked."""
        fwd = _fwd_seed(self.ctx, 0)
        rest = [n for n in names if not (self.big and n == "dry")]
        _sysrand.shuffle(rest)
        order = (["dry"] if len(rest) < len(names) else []) + rest
        if ALTERNATE and ("candidate" in names or "dry_cand" in names):
            order = alternate(names, self.big, "candidate" in names)
        frames, idle = {}, {}
        for name in order:
            if name == "candidate":
                write_both = WRITE_BOTH and self.big
                if write_both:
                    self.cand.write(sets)  # right before its frame, as ref_frame writes the reference's
                frames[name] = self.cand.frame(self.K, what, phase, fwd, reseed=self.reseed, cpu=True,
                                               clobber=self.clobber())
                if write_both and frames[name].clobbered is not None:
                    k = frames[name].clobbered  # rewritten after its frame, as ref_frame rewrites the reference's
                    self.cand.write([sets[k]], slots=[k])
            elif name == "dry_cand":
                frames[name] = self.cand.frame(self.K, "dry batch", phase, fwd, mode="dry", dry_out=self.out_shapes,
                                               cpu=True, clobber=self.clobber())
            elif name == "bare":
                frames[name] = self.ref.frame(1, "bare batch", phase, fwd, mode="dry", out_set=1, dry_out=BARE_OUT)
            elif name == "bare_cand":
                # cpu=True as the lane's other frames: its CPU time while stopped is read from frame to frame
                frames[name] = self.cand.frame(1, "bare batch", phase, fwd, mode="dry", dry_out=BARE_OUT, cpu=True)
            else:
                frames[name] = self.ref_frame({"eager": "model"}.get(name, name), sets, name, phase)
            idle[name] = self.idle_ms()
        return frames, idle

    def clean_rounds(self, big_first):
        """Rounds before the candidate is imported (its process holds nothing of it yet): the reference lane's
        eager, graph and dry frames, and the candidate lane's dry frames: the clean baselines
        (integrity.baseline_interference), both lanes' plumbing, the judge's tiny kernel on a quiet GPU. The
        first WARM_ROUNDS warm both lanes up and are not counted; then CLEAN_ROUNDS, and on a CPU more while they
        are quick (more_clean_rounds). For the `baseline` op these are the timed rounds, as many as asked."""
        n = CLEAN_ROUNDS[self.on_gpu]
        if self.baseline_only:
            _, repeat = _timing_counts(self.req, self.on_gpu)
            n = max(1, repeat)
        phase = self.ctx.phase
        K = self.K
        got = {"eager": [], "graph": [], "dry": [], "dry_cand": [], "bare": [], "bare_cand": [], "cpu_cand": [],
               "idle": [], "claim": [], "waits": {}, "phases": {}}
        sets = [big_first] if self.big else self.draws(K)
        self.ref.write(sets)
        if not self.big:
            self.capture_graph(sets)  # a big task's graph is captured for blocks of its own (graph_block)
        if self.cand is not None:
            self.cand.write(sets)  # its slots (a dry batch reads no input)
        names = ["dry", "eager"] + (["graph"] if self.graph and not self.big else []) + \
            (["dry_cand"] if self.cand is not None else []) + \
            (["bare", "bare_cand"] if self.cand is not None and self.big else [])  # (Judge.lane_offset)
        warm, spent = WARM_ROUNDS[self.on_gpu], 0.0
        for i in itertools.count():
            counted = i - warm
            if counted >= n and (self.baseline_only or not more_clean_rounds(self.on_gpu, counted, spent)):
                break
            t_round = time.perf_counter()
            if i and not self.big:  # a big task's baselines run on its first set (no candidate reads it)
                sets = self.draws(K)
                self.ref.write(sets)
            frames, idle = self.round_frames(i, names, sets, "clean round", phase)
            if i == 0:
                self.first_round_checks(sets, frames)
            if counted < 0:
                continue
            spent += (time.perf_counter() - t_round) * 1000.0
            got.setdefault("order", []).append(list(frames))  # the frames' order (KWB_FRAMES_DUMP)
            extra = counted >= n  # a CPU's rounds for the offset: their baselines' frames keep the rounds alike only
            for name, f in frames.items():
                if extra and name in ("eager", "graph"):
                    # The clean baselines stay those of CLEAN_ROUNDS: a baseline beside the candidate is counted at
                    # most at its slowest clean round (report_times), and the slowest of 30 lies further out.
                    continue
                got[name].append(f.ms)
                got["phases"].setdefault(name, []).append(f.phases)
                got["waits"].setdefault(name, []).append(self.wait_of(f))
                if idle[name] is not None and name not in ("bare", "bare_cand"):  # the idle baseline as before them
                    got["idle"].append(idle[name])
            if not extra:
                got["claim"].append(frames["eager"].claim)
            if "dry_cand" in frames:
                got["cpu_cand"].append(frames["dry_cand"].cpu_stopped)
        if self.big and self.graph:
            got["graph"] = self.graph_block(big_first if big_first is not None else sets[0], "clean")
        got["plumbing"] = min(got["dry"])
        got["plumbing_cand"] = min(got["dry_cand"]) if got["dry_cand"] else None
        self.checks.note_idle_baseline(got["idle"])
        log("clean frames (ms, median of %d rounds' baselines and %d rounds' dry frames): %s" % (
            len(got["eager"]), len(got["dry"]), ", ".join("%s %.4f" % (k, statistics.median(v)) for k, v in got.items()
                                                        if k in ("eager", "graph", "dry", "dry_cand", "bare",
                                                                 "bare_cand") and v)))
        log("clean rounds: %d call(s) a frame; eager %.4f ms a call, plumbing %.4f ms a frame (reference), %s "
            "(candidate's lane), lane offset %+.4f ms" % (
                K, statistics.median(per_call(got["eager"], got["plumbing"], K)), got["plumbing"],
                "%.4f ms" % got["plumbing_cand"] if got["plumbing_cand"] is not None else "-",
                self.lane_offset(got)))
        return got

    def clobber(self):
        """Whether the candidate's lane's frames overwrite a call's inputs after the delivery (Lane.frame): a whole
        slot, except on a big task (one slot, too big to write again every frame). A big task had drawn positions
        overwritten instead (red team 4's deliver_in_place); since the judge copies the candidate's outputs itself
        (handoff.py) no candidate code runs in a delivery, and that overwrite, which cost big candidates 0.57 ms a
        frame on four H200s, is gone."""
        return not self.big

    def first_round_checks(self, sets, frames):
        """The task's own code in a runner against the judge's reference of the same inputs (a task that does not
        reproduce itself across processes is said so), and the CUDA graph's outputs against eager's."""
        fwd = _fwd_seed(self.ctx, 0)
        e = frames.get("eager")
        if e is None or self.big:
            return
        eager_out = self.ref.outputs(e)[0]
        kind, _, _, detail = self.compare(self.reference(sets[0], fwd), eager_out)
        if kind != "ok":
            self.notes.append("the task's own code in a runner differs from the judge's reference (%s): the task "
                              "does not reproduce itself at this tolerance" % detail)
            log(self.notes[-1])
        g = frames.get("graph")
        order = list(frames)  # the round's frames in the order they ran
        if "dry" in order and g is not None and order.index("dry") > order.index("graph"):
            g = None  # the dry batch came after it and delivered into the same output set
        if g is not None and not self.big:
            kind, _, _, detail = self.compare(eager_out, self.ref.outputs(g)[0])
            if kind != "ok":
                log("note: the CUDA graph's outputs differ from eager's (%s); timing it anyway" % detail)

    def graph_block(self, inputs, label):
        """A big task's CUDA graph, captured, timed in a block of frames of its own and released (its outputs
        would not fit beside the candidate's rounds): `clean` before the candidate is imported, `after` once
        the candidate's process is gone. Returns the frames."""
        _, repeat = _timing_counts(self.req, self.on_gpu)
        frames = []
        try:
            if not self.capture_graph([inputs]):
                return []
            for i in range((3 if label == "clean" else max(3, repeat // 2)) + 1):
                f = self.ref_frame("graph", [inputs], "graph", self.ctx.phase)
                if i:
                    frames.append(f.ms)
        finally:
            if self.graph:
                self.ref.ask({"cmd": "graph", "release": True, "n": 1, "seed": 0})
                self.ref.pause()
        return frames

    # ---- the candidate -----------------------------------------------------------------------------------
    def correctness(self, trials):
        ctx, res = self.ctx, self.res
        prev_cand = prev_ref = None
        fp64_ok = self.req.get("integrity", True) is not False
        err64_c = err64_r = None
        max_abs, mean_sum = None, 0.0
        for trial, (inputs, ref) in enumerate(trials):
            if trial == 0:
                ctx.set_phase("compiling")  # the first call pays Triton JIT / lazy builds
            slot = _sysrand.randrange(self.K)  # any slot: the candidate cannot tell a trial's place from a timed call's
            self.cand.write([inputs], slots=[slot])
            f = self.cand.frame(1, "trial %d" % trial, ctx.phase, _fwd_seed(ctx, trial), check_side=True, slots=[slot],
                                peak=trial == 0)
            if trial == 0:
                if f.peak >= 0:
                    self.cand_peak = f.peak
                ctx.set_phase("running")
            for seen in self.cand.inputs([slot]):
                self.checks.note_inputs(trial, inputs, seen)
            outs = [x.clone() if isinstance(x, torch.Tensor) else x for x in self.cand.outputs(f)[0]]
            self.checks.note_idle(self.idle_ms())
            kind, m, mean, detail = self.compare(ref, outs)
            res["trials"] = trial + 1
            if kind == "shape":
                res["failing_trial"] = trial
                raise Failure("shape_mismatch", "trial %d: %s" % (trial, detail))
            self.checks.note_trial(trial, _fingerprint(outs), prev_cand, _fingerprint(ref), prev_ref)
            max_abs = _nanmax(max_abs, m)
            mean_sum += mean or 0.0
            res["max_abs_err"], res["mean_abs_err"] = max_abs, mean_sum / (trial + 1)
            if fp64_ok and trial < FP64_TRIALS:
                try:
                    got = self.fp64_check(trial, inputs, ref, outs)
                    if got is None:
                        fp64_ok = False
                        self.checks.note_no_fp64(self.res["memory_note"])
                    else:
                        err64_c, err64_r = _nanmax(err64_c, got[0]), _nanmax(err64_r, got[1])
                        res["max_abs_err_fp64"] = err64_c
                except BaseException as e:
                    log("no fp64 comparison: %s: %s" % (type(e).__name__, one_line(e)))
                    self.checks.note_no_fp64("%s: %s" % (type(e).__name__, one_line(e)))
                    res["max_abs_err_fp64"] = None
                    fp64_ok = False
            if kind == "wrong":
                res["failing_trial"] = trial
                raise Failure("wrong_result", "trial %d: %s" % (trial, detail))
            prev_cand, prev_ref = _fingerprint(outs), _fingerprint(ref)
            del outs, inputs, ref
        if fp64_ok and err64_c is not None:
            self.checks.note_precision(err64_c, err64_r, self.out_scale)
            self.err64 = (err64_c, err64_r)
        cand_peak = getattr(self, "cand_peak", None)
        if cand_peak is not None and self.on_gpu:
            # As the reference's: weights + one input set + what forward allocated at its peak. The
            # candidate's process reports its allocator's figures: a number to read, not a verdict.
            self.res["candidate_peak_bytes"] = int(cand_peak + self.in_bytes + self.cand_model_bytes)

    def timed(self):
        """Warm-up rounds, one discarded round, then `repeat` rounds, each of the reference lane's dry batch, then
        eager, the CUDA graph and the candidate's batch in an order that rotates, every call on fresh inputs;
        checked rounds compare each of the candidate's calls with the reference lane's eager call on the same
        inputs."""
        warmup, repeat = _timing_counts(self.req, self.on_gpu)
        K = self.K
        every = self.out_bytes * K * repeat <= CHECK_ALL_BYTES
        n_check = repeat if every else min(repeat, CHECK_SAMPLE)
        more = cpu_rounds(self.clean) if not self.on_gpu and self.req.get("repeat") is None else 0
        if more > repeat:
            # More rounds on a CPU (cpu_rounds), as many of them checked as before, drawn at random: checking every
            # round of 45 doubled a tiny task's evaluation (9.7 s against 5.1 s). A figure is a median over the rounds,
            # so a candidate must be fast in most of them to move it, and skipping its work in most rounds is caught
            # by one checked round of 15.
            repeat, every = more, False
        if more:
            self.notes.append("%d timed rounds (none were asked for: the judge's count on a CPU, by the task's speed)"
                              % repeat)
        checked = set(range(repeat)) if every else set(_sysrand.sample(range(repeat), n_check))
        # Rounds beyond `repeat` (frames that another process delayed, see below) only where every round is checked:
        # a round the candidate could count on being unchecked would be one it could skip its work in.
        limit = repeat * QUIET_ROUNDS if every else repeat
        self.checked_timed = 0
        fp64_call = 1 + _sysrand.choice(sorted(checked)) if checked else -1
        got = {"eager": [], "graph": [], "candidate": [], "dry": [], "claim": [], "eager_claim": [], "cpu": []}
        names = ["dry", "eager", "candidate"] + (["graph"] if self.graph and not self.big else [])
        got["waits"] = {n: [] for n in names}  # each frame's wait for a CPU (Frame.waited), by kind
        got["idles"] = {n: [] for n in names}  # the judge's tiny kernel after each frame, by kind
        got["raw_waits"] = {n: [] for n in names}  # Frame.waited as read, on a GPU too (KWB_FRAMES_DUMP)
        got["phases"] = {}  # Frame.phases by kind (KWB_FRAMES_DUMP)
        i = -1
        while True:
            i += 1
            rnd = i - warmup  # < 0: warm-up; 0: discarded; 1..: timed (repeat, more while frames waited for a CPU)
            if rnd > repeat and not more_rounds(got, names, repeat, limit):
                break
            check = rnd == 0 or (rnd > 0 and (every or (rnd - 1) in checked))
            what = "warm-up calls" if rnd < 0 else "timed calls %d" % rnd
            sets = self.draws(K)
            if not self.big:
                self.ref.write(sets)
            if not (WRITE_BOTH and self.big):  # (WRITE_BOTH: a big task's are written right before its frame)
                self.cand.write(sets)
            frames, idle = self.round_frames(i, names, sets, what, "running")
            self.checks.note_idle(idle["candidate"])
            if rnd > 0:
                got.setdefault("order", []).append(list(frames))  # the frames' order (KWB_FRAMES_DUMP)
                for name, f in frames.items():
                    got["phases"].setdefault(name, []).append(f.phases)
                    got[name].append(f.ms)
                    got["waits"][name].append(self.wait_of(f))
                    got["raw_waits"][name].append(f.waited)
                    got["idles"][name].append(idle[name])
                got["claim"].append(frames["candidate"].claim)
                got["eager_claim"].append(frames["eager"].claim)
                got["cpu"].append(frames["candidate"].cpu_stopped)
            if check:
                self.check_round(what, sets, frames, rnd == fp64_call)
                if rnd >= 0:
                    self.checked_timed += K
            del sets, frames
        report = self.cand.ask({"cmd": "report"})
        self.cand.pause()
        self.checks.note_runner(report)
        if self.on_gpu:
            # Where the device's memory went (the GPU check reads these lines): the judge's allocator, the
            # candidate's (its own report), the arenas.
            log("memory: judge reserved at most %.2f GiB, candidate's process %s GiB, arenas %.2f GiB" % (
                torch.cuda.max_memory_reserved() / 2 ** 30,
                "%.2f" % (report["max_reserved"] / 2 ** 30) if isinstance(report.get("max_reserved"), int)
                and 0 <= report["max_reserved"] < 2 ** 50 else "?",
                (self.ref.arena.size + self.cand.arena.size) / 2 ** 30))
        if self.big and self.graph:
            # The candidate's process goes first: the graph's outputs would not fit beside what it holds.
            self.cand.runner.kill()
            got["graph"] = self.graph_block(self.fresh_inputs(), "after")
            if got["graph"]:
                self.notes.append("the CUDA graph was timed in frames of its own before the candidate was imported "
                                  "and after its process was gone (big task)")
        if K > 1:
            self.notes.append("%d calls a frame, each on fresh inputs; every figure is the judge's frame less its "
                              "plumbing, over the calls" % K)
        self.report_times(self.counted(got, names, repeat))

    def counted(self, got, names, repeat):
        """The frames of each kind that count: `repeat` of them as they came, or on a busy machine the same number
        (quiet_count) of frames that no other process delayed, by the kernel's own account of each frame's wait for a
        CPU (pick_quiet); where too few were, the first `repeat`, for the figures each less its run delay beyond the
        least delayed kind's share (undelayed).
        Every frame still counts for the checks of work while stopped, and for the plumbing (its fastest dry frame)."""
        out = dict(got, every={n: got[n] for n in names})  # (every frame, for KWB_FRAMES_DUMP)
        rounds = len(got["candidate"])
        kinds = [n for n in names if n != "dry"]  # the plumbing is the fastest dry frame of all
        delayed = {n: sum(1 for f, w in zip(got[n], got["waits"][n]) if not quiet(f, w)) for n in kinds}
        choose = selecting(got, kinds, repeat)
        take = quiet_count(got, kinds, repeat) if choose else repeat
        if not self.on_gpu:
            self.checks.note_busy(delayed, rounds, choose)
        out["figures"] = {}  # the frames each figure is made of (report_times); the checks read the frames as they were
        out["rounds"] = {}  # the rounds they came from, by kind (report_times pairs the candidate's with eager's)
        picked = {n: pick_quiet(got[n], got["waits"][n], take) if choose else list(range(min(repeat, len(got[n]))))
                  for n in kinds}
        waits = {n: [got["waits"][n][k] for k in picked[n]] for n in kinds}
        for n in kinds:
            out[n] = [got[n][k] for k in picked[n]]
        least = 0.0 if choose else min((x for x in (delay_share(out[n], waits[n]) for n in kinds) if x is not None),
                                       default=0.0)
        for n in kinds:
            idx = picked[n]
            out["rounds"][n] = list(idx)
            out["figures"][n] = out[n] if choose else undelayed(out[n], waits[n], least)
            if n == "candidate":
                out["claim"] = [got["claim"][k] for k in idx]
            elif n == "eager":
                out["eager_claim"] = [got["eager_claim"][k] for k in idx]
        if any(delayed.values()):
            self.notes.append("frames another process delayed (the kernel's run delay of the judge and the runner): %s "
                              "of %d rounds; each figure counts %d frames%s" % (
                                  ", ".join("%s %d" % (n, delayed[n]) for n in kinds), rounds, take,
                                  " that were not" if choose else
                                  ", the first, each less its run delay beyond the least delayed kind's share (fewer "
                                  "than a third were not delayed)"))
            log(self.notes[-1])
        return out

    def check_round(self, what, sets, frames, fp64):
        """The candidate's calls of a round against the reference lane's eager calls on the same inputs (read in
        both arenas, the runners stopped), and its inputs as the judge wrote them."""
        res = self.res
        self.checks.note_watches(self.cand.runner.file_watches(),  # (stopped: its descriptors stay as they were)
                                 self.ref.runner.file_watches())
        refs = self.ref.outputs(frames["eager"])
        outs = self.cand.outputs(frames["candidate"])
        for k, (s, seen) in enumerate(zip(sets, self.cand.inputs(range(len(sets))))):
            if k != frames["candidate"].clobbered:  # the judge overwrote that one itself (Lane.frame)
                self.checks.note_inputs(-1, s, seen, "%s, call %d" % (what, k + 1))
        kind, worst, at = self.compare_batch(refs, outs)
        if kind != "ok":
            worst, at = None, None
            for k, (ref, out) in enumerate(zip(refs, outs)):
                kind, m, _, detail = self.compare(ref, out)
                if kind != "ok":
                    res["failing_trial"] = -1
                    why = "right in all %d correctness trials: the candidate behaves differently once it is timed" \
                        % res["trials"]
                    raise Failure("wrong_result" if kind == "wrong" else "shape_mismatch",
                                  "%s, call %d of %d: %s (%s)" % (what, k + 1, len(outs), detail, why))
                if m is not None and (worst is None or m > worst):
                    at = k
                worst = _nanmax(worst, m)
        res["max_abs_err"] = _nanmax(res["max_abs_err"], worst)
        if self.err64 is None:
            return
        # Against fp64: a call drawn in one timed round (no slot is the one checked), and the call furthest from the
        # reference's wherever it is further than any checked before (a candidate imprecise on a few calls only,
        # redteam2/cheat_late_output.py, was checked on a drawn call and passed at 1e4x the reference's error).
        calls = [(_sysrand.randrange(len(outs)), False)] if fp64 else []
        if at is not None and worst is not None and worst > self.err64_at:
            self.err64_at = worst
            calls.append((at, True))
        done = {}
        for k, far in calls:
            if k not in done:
                try:
                    done[k] = self.fp64_check(0, self.as_called(sets, refs, k), refs[k], outs[k],
                                              fwd_seed=_fwd_seed(self.ctx, 0))
                except BaseException as e:
                    done[k] = None
                    log("no fp64 comparison of %s: %s" % (what, one_line(e)))
            got = done[k]
            if got is None:
                continue
            res["max_abs_err_fp64"] = _nanmax(res["max_abs_err_fp64"], got[0])
            if far:
                had = self.err64_far or got
                self.err64_far = (_nanmax(had[0], got[0]), _nanmax(had[1], got[1]))
                self.checks.note_precision_far(*self.err64_far)
            else:
                self.err64 = (_nanmax(self.err64[0], got[0]), _nanmax(self.err64[1], got[1]))
                self.checks.note_precision(self.err64[0], self.err64[1], self.out_scale)

    # ---- figures ------------------------------------------------------------------------------------------
    def plumbing(self, got):
        """The plumbing subtracted from the frames of each lane: the reference lane's fastest dry frame over the
        whole evaluation (a batch whose forward does nothing, delivering outputs of the reference's shapes), and
        for the candidate's lane that plus the lanes' offset (lane_offset()). One fastest frame rather than each
        lane's own keeps the noise of two minima out of the ratio; a loaded machine only lengthens frames, and the
        fastest dry frame leaves those delays in every figure alike, pulling a ratio towards 1 rather than
        dividing by what is left of a frame after a noisy plumbing."""
        p = min(list(self.clean["dry"]) + list(got.get("dry") or []))
        return p, p + self.lane_offset(self.clean)

    def lane_offset(self, clean):
        """lane_offset() of the clean rounds' frames that are laid out alike in both lanes: their dry frames, but
        for a big task, whose reference lane delivers over its inputs (rewritten before each of its frames) and
        the candidate's apart from them, so that their dry frames differ by more than the lanes (on an H100
        88_MinGPTNewGelu's by -0.27 to -0.41 ms a frame). A big task's lanes are compared by their bare frames
        instead: one call a frame of a dry batch that delivers one number, in each lane. Without an offset the big
        tasks' own copies came out at 0.67-1.0x in a sweep on four H200s (149 tasks, median 0.977x, 31 under
        0.95x; the candidate's frames 0.19 ms longer than eager's for the same code, median), the rest at 1.005x."""
        if not self.big:
            return lane_offset(clean)
        waits = clean.get("waits") or {}
        return lane_offset({"dry": clean.get("bare") or [], "dry_cand": clean.get("bare_cand") or [],
                            "waits": {"dry": waits.get("bare"), "dry_cand": waits.get("bare_cand")}},
                           plumbing=min(clean["dry"]) if clean.get("dry") else None)

    def report_times(self, got):
        res, clean, K = self.res, self.clean, self.K
        p_ref, p_cand = self.plumbing(got)
        if os.environ.get("KWB_FRAMES_DUMP"):
            # Every frame of the evaluation, for studying the clock's noise (tests/gpu/judge_check.py).
            import json

            with open(os.environ["KWB_FRAMES_DUMP"], "a") as f:
                f.write(json.dumps({"task": self.req.get("task_file"), "candidate": self.req.get("candidate_file"),
                                    "K": K, "clean": clean, "timed": got, "plumbing": [p_ref, p_cand],
                                    "threads": dict(self.m_threads, timed={
                                        lane.name: lane.runner.thread_stats() for lane in (self.ref, self.cand)})})
                        + "\n")
        clean_calls = {n: per_call(clean[n], p_ref, K) for n in ("eager", "graph") if clean.get(n)}
        wanted = self.req.get("baselines", True) is not False
        beside = {}
        cand = per_call((got.get("figures") or {}).get("candidate") or got["candidate"], p_cand, K)
        for name in ("eager", "graph"):
            frames = (got.get("figures") or {}).get(name) or got.get(name) or []
            if not frames or not wanted:
                continue
            # (integrity.baseline_interference reads the rounds as they were)
            slow = candidate_pace(self.on_gpu, cand, clean_calls.get(name))
            v, cap = capped(per_call(frames, p_ref, K), clean_calls.get(name), slow)
            if cap is not None:
                self.notes.append("%s rounds beside the candidate were slower than every round before it was "
                                  "imported: counted at most %.4f ms, the slowest of those%s" % (
                                      name, cap, "" if slow == 1.0 else " times %.2f, as much slower as the "
                                      "candidate's own calls ran" % slow))
            res[name] = timing.stats(v)
            beside[name] = v
        if paired(got, beside.get("eager"), cand):
            cand = by_round(cand, beside["eager"])
            self.notes.append("each of the candidate's frames is read against eager's frame of the same round, at "
                              "eager's median (the machine's speed drifts from round to round)")
        res["candidate"] = timing.stats(cand)
        self.checks.note_clock(got["claim"], got["candidate"], p_cand, got["eager_claim"], got["eager"], p_ref)
        self.checks.note_stopped(got["cpu"], clean.get("cpu_cand", []), statistics.median(got["candidate"]))
        clean_frames = {n: clean[n] for n in ("eager", "graph") if clean.get(n) and got.get(n)}
        if clean_frames:
            self.checks.note_baselines(clean_frames, {n: timing.stats(got[n]) for n in clean_frames})
        if res["candidate"]["median_ms"]:
            base = res["graph"] if res["graph"]["samples"] else res["eager"]
            if base["samples"]:
                seen, why = measurable(clean)
                if not seen:
                    self.notes.append("the task's calls are within the plumbing's noise, so the speedup is too: "
                                      + why)
                self.checks.note_speedup(base["median_ms"] / res["candidate"]["median_ms"],
                                         "CUDA-graph" if base is res["graph"] else "eager",
                                         float(self.req.get("plausible_speedup", 10.0)), None if seen else why)

    def report_baseline(self):
        res, clean, K = self.res, self.clean, self.K
        for name in ("eager", "graph"):
            if clean.get(name):
                res[name] = timing.stats(per_call(clean[name], clean["plumbing"], K))
        res["status"] = "ok"
        _, repeat = _timing_counts(self.req, self.on_gpu)
        res["reason"] = "; ".join(["baseline timed on %s, %d rounds of %d call(s) a frame" % (res["device"], repeat, K)]
                                  + self.notes)

    def probe_sensitivity(self, inputs):
        """Which parts of the inputs the reference's output does not depend on, at the comparison's
        tolerance: the first half of an input along one dimension is redrawn and the reference run
        again. Where nothing changes, a candidate that skips that work (a recurrence's early steps under
        a random init that forgets them) matches the reference, and no comparison of outputs can tell:
        the result says so instead of staying silent. Judge-side only; skipped for big or slow tasks."""
        eager = self.res["eager"]["median_ms"] or 0.0
        if self.big or eager > PROBE_MAX_MS or inputs is None:
            self.checks.note_sensitivity(None, "not probed: the reference takes %.0f ms%s" % (
                eager, " and the inputs are big" if self.big else ""))
            return
        try:
            fwd = _fwd_seed(self.ctx, 0)
            base = self.reference(inputs, fwd)
            found, probes = [], 0
            for i, x in enumerate(inputs):
                if not isinstance(x, torch.Tensor) or not x.is_floating_point() or x.numel() < 2:
                    continue
                for d in range(x.dim()):
                    n = x.shape[d]
                    if n < PROBE_MIN_DIM or probes >= PROBE_MAX:
                        continue
                    probes += 1
                    y = x.clone()
                    part = y.narrow(d, 0, n // 2)
                    part.copy_(torch.randn_like(part) * x.float().std() + x.float().mean())
                    kind, _, _, _ = self.compare(base, self.reference(inputs[:i] + [y] + inputs[i + 1:], fwd))
                    if kind == "ok":
                        found.append((i, d, n // 2, n))
            self.checks.note_sensitivity(found, "%d parts of the inputs probed" % probes)
        except Failure:
            raise
        except BaseException as e:  # a probe is evidence, never a reason to fail the evaluation
            self.checks.note_sensitivity(None, "not probed: %s" % one_line(e))


class _LazyTrials:
    """Big sets: trial t's inputs and reference are made when the trial comes and dropped after it (the
    judge keeps one set and one reference alive at a time). Trial 0's inputs are the judge's timed
    inputs until then."""

    def __init__(self, judge, n, first):
        self.m_judge, self.m_n, self.m_first = judge, n, first

    def __iter__(self):
        j = self.m_judge
        for t in range(self.m_n):
            if t == 0:
                inputs, self.m_first = self.m_first, None
            else:
                inputs = j.trial_inputs(t)
            pair = (inputs, j.reference(inputs, _fwd_seed(j.ctx, t)))
            del inputs
            yield pair
            del pair


def _fingerprint(values):
    """What tells one output from another (integrity.cached_output): the values themselves, or for a big
    tensor a strided sample of them."""
    out = []
    for v in values:
        if isinstance(v, torch.Tensor) and v.numel() > FINGERPRINT:
            flat = v.detach().reshape(-1)
            out.append(flat[::max(1, flat.numel() // FINGERPRINT)].clone())
        else:
            out.append(v.detach().clone() if isinstance(v, torch.Tensor) else v)
    return out


def _deepcopy_to(model, device):
    import copy

    return copy.deepcopy(model).to(device)


def _rng_states(on_gpu):
    states = [torch.get_rng_state()]
    if on_gpu:
        states.append(torch.cuda.get_rng_state())
    return states
