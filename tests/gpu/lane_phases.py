#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Where the lanes' frames differ: reads KWB_FRAMES_DUMP files (one evaluation a line) and prints, per label, how much
longer the candidate's frames are than eager's for the same code (own copies), what the judge's lane offset took off,
what is left, phase by phase, the frames' noise, and the runners' threads (when the dump has them).

Usage: lane_phases.py LABEL=DUMP[.gz] [LABEL=DUMP ...] [--by-task] [--phases-by-task]
  e.g. lane_phases.py main=f_main.jsonl.gz omp=f_omp.jsonl.gz --by-task
--phases-by-task: what is left of each task's frames, phase by phase (every label together), and eager's own phases.

A frame's phases (Lane.frame, lane._phases): thaw (the judge's t0 to the runner's receipt), batch (the runner's command),
back (its answer to the judge), todeliv, deliv (the delivery: the reference's runner's, or the judge's copy on the
candidate's lane), back2, clob; then the batch's own parts where the runner stamped them: pre (before its calls), span
(the calls, the runner's clock), post (the wait for the device after them), report (the candidate's lane's report).
The offset's frames are a big task's bare frames, else the dry ones (Judge.lane_offset).
"""
import gzip
import json
import statistics as st
import sys

PHASES = ["thaw", "batch", "back", "todeliv", "deliv", "back2", "clob", "pre", "span", "post", "report"]


def med(xs):
    xs = [x for x in xs if x is not None and x == x]
    return st.median(xs) if xs else float("nan")


def quart(xs):
    xs = [x for x in xs if x == x]
    if len(xs) < 2:
        return "%+.3f" % (xs[0] if xs else float("nan"))
    q = st.quantiles(xs, n=4)
    return "%+.3f [%+.3f..%+.3f]" % (st.median(xs), q[0], q[2])


def iqr_share(xs):
    q = st.quantiles(xs, n=4)
    return (q[2] - q[0]) / st.median(xs)


def read(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return [json.loads(line) for line in f if line.strip()]


def phase(frames, i):
    """Phase i of each frame (PHASES), median. Dumps of session 17's first calls had one part of the batch only, its
    report (an 8th value)."""
    def one(p):
        if len(p) == 8 and i >= 7:
            return p[7] if PHASES[i] == "report" else None
        return p[i] if len(p) > i else None

    return med([one(p) for p in frames if p])


def offset_kinds(r):
    c = r["clean"]
    return ("bare", "bare_cand") if c.get("bare") and c.get("bare_cand") else ("dry", "dry_cand")


def figure(r):
    """eager / candidate per call, as report_times makes it (medians of the counted frames, less the plumbing)."""
    t, (p_ref, p_cand) = r["timed"], r["plumbing"]
    fig = t.get("figures") or {}
    e, c = fig.get("eager") or t["eager"], fig.get("candidate") or t["candidate"]
    return (med(e) - p_ref) / max(1e-9, med(c) - p_cand)


def threads_per_frame(r, lane, s0, s1, frames):
    """(pool threads' CPU, CUDA threads' CPU, main thread's run delay) in us a frame, between two stages' snapshots."""
    T = r.get("threads") or {}
    a = {x[1]: x for x in (T.get(s0) or {}).get(lane) or []}
    b = {x[1]: x for x in (T.get(s1) or {}).get(lane) or []}
    if not a or not b or not frames:
        return None
    main = T[s1][lane][0][0]  # the runner's pid, its main thread's id (RunnerClient.thread_stats lists it first)
    pool = sum(b[k][3] - a[k][3] for k in b if k in a and k != main and not b[k][2].startswith("cuda"))
    cuda = sum(b[k][3] - a[k][3] for k in b if k in a and b[k][2].startswith("cuda"))
    delay = b[main][4] - a[main][4] if main in a else float("nan")
    return pool * 1000.0 / frames, cuda * 1000.0 / frames, delay * 1000.0 / frames, len(b)


def summary(label, rows):
    excess, applied, left, noise_e, noise_c, claims = [], [], [], [], [], []
    by_phase = {p: [] for p in PHASES}
    thr = {"reference": [], "candidate": []}
    for r in rows:
        c, t = r["clean"], r["timed"]
        every = t.get("every") or t
        ce = med(every["candidate"]) - med(every["eager"])
        off = r["plumbing"][1] - r["plumbing"][0]
        excess.append(ce)
        applied.append(off)
        left.append(ce - off)
        noise_e.append(iqr_share(every["eager"]))
        noise_c.append(iqr_share(every["candidate"]))
        if t.get("claim") and t.get("eager_claim"):
            claims.append(med(t["claim"]) - med(t["eager_claim"]))
        for p, x in zip(PHASES, left_by_phase(r)):
            by_phase[p].append(x)
        nref = sum(len(c.get(k) or []) for k in ("dry", "eager", "graph", "bare"))
        ncand = sum(len(c.get(k) or []) for k in ("dry_cand", "bare_cand"))
        for lane, n in (("reference", nref), ("candidate", ncand)):
            got = threads_per_frame(r, lane, "runners ready", "clean rounds", n)
            if got:
                thr[lane].append(got)
    figs = [figure(r) for r in rows]
    print("== %s: %d evaluations; figure (recomputed: medians, not paired by round) median %.3f, %d in 0.95-1.05" % (
        label, len(rows), med(figs), sum(0.95 <= x <= 1.05 for x in figs)))
    print("  candidate - eager, ms a frame (median [IQR]): %s; lane offset applied %s (in %d of %d); left %s" % (
        quart(excess), quart(applied), sum(1 for a in applied if a), len(applied), quart(left)))
    print("  the runner's own clock, candidate - eager: %s ms (the device's work)" % quart(claims))
    print("  left by phase, against the offset's frames:",
          " ".join("%s %+.3f" % (p, med(v)) for p, v in by_phase.items() if any(x == x for x in v)))
    print("  frames' spread (IQR / median): eager %.3f, candidate %.3f" % (med(noise_e), med(noise_c)))
    for lane, xs in thr.items():
        if xs:
            print("  %s's runner, clean rounds, us a frame: other threads' CPU %.1f, CUDA threads' CPU %.1f, main "
                  "thread's run delay %.1f (%d threads)" % (lane, med([x[0] for x in xs]), med([x[1] for x in xs]),
                                                          med([x[2] for x in xs]), med([x[3] for x in xs])))


def by_task(groups):
    tasks = {}
    for label, rows in groups:
        for r in rows:
            name = r["task"].rsplit("/", 1)[-1].rsplit(".", 1)[0]
            every = r["timed"].get("every") or r["timed"]
            tasks.setdefault(name, []).append((figure(r), frame_left(r), med(every["eager"]), label))
    print("== by task (every label): evaluations, figure mean and sd, candidate's frame beyond eager's less the offset,"
          " eager's frame")
    for name, xs in sorted(tasks.items(), key=lambda kv: st.fmean([x[0] for x in kv[1]])):
        f = [x[0] for x in xs]
        print("  %-45s %3d  %.3f  %.3f  %+.3f ms  %7.3f ms" % (name[:45], len(xs), st.fmean(f),
                                                             st.pstdev(f), med([x[1] for x in xs]),
                                                             med([x[2] for x in xs])))


def frame_left(r):
    """How much longer the candidate's frames are than eager's, less the lane offset the judge took off (ms)."""
    every = r["timed"].get("every") or r["timed"]
    return med(every["candidate"]) - med(every["eager"]) - (r["plumbing"][1] - r["plumbing"][0])


def left_by_phase(r):
    """The candidate's phases beyond eager's, less the same difference in the offset's frames (ms, medians)."""
    c, t = r["clean"], r["timed"]
    ref_k, cand_k = offset_kinds(r)
    return [(phase(t["phases"]["candidate"], i) - phase(t["phases"]["eager"], i)) -
            (phase(c["phases"].get(cand_k, []), i) - phase(c["phases"].get(ref_k, []), i)) for i in range(len(PHASES))]


def phases_by_task(groups):
    tasks = {}
    for _, rows in groups:
        for r in rows:
            eager = [phase(r["timed"]["phases"]["eager"], i) for i in range(len(PHASES))]
            tasks.setdefault(r["task"].rsplit("/", 1)[-1].rsplit(".", 1)[0][:24], []).append(
                (figure(r), frame_left(r), left_by_phase(r), eager))
    order = sorted(tasks.items(), key=lambda kv: st.fmean([x[0] for x in kv[1]]))
    head = " ".join("%6s" % p[:6] for p in PHASES)
    print("== left by phase and task (ms; figure mean, frame left, then each phase):")
    print("  %-24s %5s %6s %s" % ("task", "fig", "left", head))
    for name, xs in order:
        print("  %-24s %5.3f %+6.3f %s" % (name, st.fmean([x[0] for x in xs]), med([x[1] for x in xs]),
                                         " ".join("%+6.3f" % med([x[2][i] for x in xs]) for i in range(len(PHASES)))))
    print("== eager's own phases (ms):")
    for name, xs in order:
        print("  %-24s %s" % (name, " ".join("%6.3f" % med([x[3][i] for x in xs]) for i in range(len(PHASES)))))


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if not args or any("=" not in a for a in args):
        sys.exit(__doc__)
    groups = []
    for a in args:
        label, path = a.split("=", 1)
        rows = [r for r in read(path) if r.get("timed", {}).get("candidate")]
        groups.append((label, rows))
        summary(label, rows)
    if "--by-task" in sys.argv:
        by_task(groups)
    if "--phases-by-task" in sys.argv:
        phases_by_task(groups)


if __name__ == "__main__":
    main()
