// SPDX-License-Identifier: MIT
#pragma once

// Builds small but real run directories for the UI tests with the store's RunWriter: the tests read
// them back through store::openRun exactly as the application does.

#include "store/runstore.h"

#include <QString>
#include <QTest>

#include <memory>

namespace kwb::fixture {

inline LatencyStats latency(double median, double sd)
{
    LatencyStats s;
    s.medianMs = median;
    s.meanMs = median;
    s.stdMs = sd;
    s.minMs = median - sd;
    s.maxMs = median + sd;
    s.cv = sd / median;
    s.samples = 20;
    return s;
}

inline EvalResult eval(EvalStatus status, double median = 0, double sd = 0)
{
    EvalResult r;
    r.status = status;
    r.reason = status == EvalStatus::Ok ? QStringLiteral("matches the reference") : QStringLiteral("failed: ") + toName(status);
    r.device = QStringLiteral("cuda:0 NVIDIA H100 80GB HBM3");
    r.onGpu = true;
    r.trials = 5;
    r.eager = latency(48.7, 6.1);
    r.graph = latency(9.02, 0.05);
    if (median > 0)
        r.candidate = latency(median, sd);
    return r;
}

/// A kernel source of `lines` lines; line N reads "# line N" so tests can check what is shown.
inline QString code(const QString &id, int lines = 120)
{
    QString s = QStringLiteral("# candidate %1\nimport torch\n").arg(id);
    for (int i = 3; i <= lines; ++i)
        s += i % 10 == 0 ? QStringLiteral("def f%1(x):\n").arg(i) : QStringLiteral("    x = x + %1  # line %1\n").arg(i);
    return s;
}

/// The ids of the standard fixture (creation order):
///   c0001 seed1 (compile error) -> c0002 seed1_repair1 (correct, 30 ms) -> c0003 algo-opt (correct,
///   10 ms, an integrity violation at lines 90-92 and a warning at line 5) -> c0004 stage grid (wrong result)
///   c0005 seed2 (correct, 60 ms)
struct StandardRun {
    QString dir;
    Run run;
};

inline Candidate candidate(store::RunWriter &w, CandidateKind kind, const QString &parent, const QString &label)
{
    Candidate c;
    c.id = w.nextCandidateId();
    c.parentId = parent;
    c.kind = kind;
    c.label = label;
    c.createdAt = QDateTime::currentDateTimeUtc();
    return c;
}

inline LlmExchange exchange(store::RunWriter &w, const QString &callType, int in, int out)
{
    LlmExchange x;
    x.id = w.nextExchangeId();
    x.callType = callType;
    x.provider = QStringLiteral("replay");
    x.model = QStringLiteral("deepseek-chat");
    x.messages = {{QStringLiteral("system"), QStringLiteral("You write Triton kernels.")},
                  {QStringLiteral("user"), QStringLiteral("## Task\nOptimize `Model`:\n```python\nclass Model: pass\n```")}};
    x.response = QStringLiteral("Here is the kernel:\n```python\nimport triton\n```\n");
    x.reasoning = callType == QLatin1String("seed1") ? QStringLiteral("The GRU is launch-bound.") : QString();
    x.inputTokens = in;
    x.outputTokens = out;
    x.costUsd = 0.0012;
    x.durationMs = 12300;
    x.startedAt = QDateTime::currentDateTimeUtc();
    return x;
}

/// A writer for a new 39_GRU replay run under `runsDir` (fatal on failure: a fixture must exist).
inline std::unique_ptr<store::RunWriter> gruRunWriter(const QString &runsDir)
{
    RunInfo info;
    info.taskName = QStringLiteral("39_GRU");
    info.taskFile = QStringLiteral("tasks/level3/39_GRU.py");
    info.provider = QStringLiteral("replay");
    info.model = QStringLiteral("deepseek-chat");
    QString error;
    std::unique_ptr<store::RunWriter> w = store::RunWriter::create(runsDir, info, &error);
    if (!w)
        qFatal("RunWriter::create failed: %s", qPrintable(error));
    return w;
}

/// Adds a candidate with the LLM call that made it and, when given, its evaluation; returns its id.
inline QString addCandidate(store::RunWriter &w, Candidate c, const std::optional<EvalResult> &r, const QString &callType,
                            int in, int out)
{
    LlmExchange x = exchange(w, callType, in, out);
    x.candidateId = c.id;
    c.exchangeIds = {x.id};
    if (!w.addExchange(x) || !w.addCandidate(c, code(c.id)))
        qFatal("RunWriter failed: %s", qPrintable(w.lastError()));
    if (r) {
        c.status = CandidateStatus::Evaluated;
        c.eval = r;
        if (!w.updateCandidate(c))
            qFatal("RunWriter failed: %s", qPrintable(w.lastError()));
    }
    return c.id;
}

inline StandardRun writeStandardRun(const QString &runsDir)
{
    std::unique_ptr<store::RunWriter> w = gruRunWriter(runsDir);
    auto add = [&](const Candidate &c, const std::optional<EvalResult> &r, const QString &callType, int in, int out) {
        return addCandidate(*w, c, r, callType, in, out);
    };
    const QString seed1 = add(candidate(*w, CandidateKind::Seed, {}, QStringLiteral("seed1")),
                              eval(EvalStatus::CompileError), QStringLiteral("seed1"), 1000, 500);
    const QString repair = add(candidate(*w, CandidateKind::Repair, seed1, QStringLiteral("seed1_repair1")),
                               eval(EvalStatus::Ok, 30.0, 0.5), QStringLiteral("seed1_repair1"), 2000, 700);
    Candidate algo = candidate(*w, CandidateKind::AlgoOpt, repair, QStringLiteral("algorithm_optimized_seed1"));
    Verdict grid;
    grid.detector = QStringLiteral("grid_one_dim");
    grid.outcome = Outcome::Yes;
    grid.severity = Severity::Warning;
    grid.summary = QStringLiteral("the grid has one dimension");
    grid.evidence = {{5, 5, QStringLiteral("grid = (B,)")}};
    grid.suggestedFix = QStringLiteral("tile the hidden dimension too");
    Verdict clean;
    clean.detector = QStringLiteral("persistent_kernel");
    clean.outcome = Outcome::No;
    clean.summary = QStringLiteral("not a persistent kernel");
    algo.verdicts = {grid, clean};
    EvalResult algoEval = eval(EvalStatus::Ok, 10.0, 0.2);
    Verdict integrity;
    integrity.detector = QStringLiteral("integrity.reference_call");
    integrity.outcome = Outcome::Yes;
    integrity.severity = Severity::Error;
    integrity.summary = QStringLiteral("calls the reference model");
    integrity.evidence = {{90, 92, QStringLiteral("return self.ref(x)")}};
    algoEval.runtimeChecks = {integrity};
    const QString algoId = add(algo, algoEval, QStringLiteral("algorithm_optimized_seed1"), 3000, 900);
    add(candidate(*w, CandidateKind::StageGrid, algoId, QStringLiteral("stage_grid")),
        eval(EvalStatus::WrongResult, 12.0, 0.1), QStringLiteral("stage_grid"), 1500, 400);
    add(candidate(*w, CandidateKind::Seed, {}, QStringLiteral("seed2")), eval(EvalStatus::Ok, 60.0, 2.0),
        QStringLiteral("seed2"), 1100, 600);
    w->writeSnapshot();
    StandardRun out;
    out.dir = w->directory();
    out.run = w->run();
    w.reset(); // releases writer.lock, as a finished run would
    return out;
}

/// A run where most things went wrong, for screenshots and the evaluation-details tests (creation order):
///   c0001 seed1 (correct, 121 ms: the naive per-step seed; peak memory measured)
///   c0002 seed2 (harness_out_of_memory: the evaluator's own references did not fit)
///   c0003 seed1_repair1 (crash, signal 11, with a log tail)
///   c0004 algorithm_optimized_seed1 (wrong result, max err 0.459 vs fp32, trial 0 failed)
///   c0005 algorithm_optimized_seed1_repair1 (correct, 2.13 ms: 4.2x the CUDA graph; profiled; a flagged
///         run-time check)
///   c0006 stage_grid (correct, 9.0 ms: ≈1.00x the CUDA graph, within noise)
///   c0007 stage_block (compile error: tl.tanh)
inline StandardRun writeFailingRun(const QString &runsDir)
{
    std::unique_ptr<store::RunWriter> w = gruRunWriter(runsDir);
    auto add = [&](const Candidate &c, const EvalResult &r) { return addCandidate(*w, c, r, c.label, 1200, 800); };
    constexpr qint64 MiB = qint64(1) << 20;
    EvalResult naive = eval(EvalStatus::Ok, 121.4, 3.2);
    naive.maxAbsErr = 2.4e-7;
    naive.meanAbsErr = 3.1e-8;
    naive.maxAbsErrFp64 = 1.9e-7;
    naive.candidatePeakBytes = 310 * MiB;
    naive.referencePeakBytes = 262 * MiB;
    const QString seed1 = add(candidate(*w, CandidateKind::Seed, {}, QStringLiteral("seed1")), naive);

    EvalResult oom = eval(EvalStatus::HarnessOutOfMemory);
    oom.reason = QStringLiteral("the evaluator's fp64 reference did not fit the device (not the candidate's fault)");
    oom.memoryNote = QStringLiteral("fp64 check chunked by 4; still 81.2 GiB asked of 79.1 GiB");
    oom.logTail = QStringLiteral("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 24.00 GiB\n");
    add(candidate(*w, CandidateKind::Seed, {}, QStringLiteral("seed2")), oom);

    EvalResult crash = eval(EvalStatus::Crash);
    crash.reason = QStringLiteral("the worker died: signal 11 (SIGSEGV) while running trial 0");
    crash.logTail = QStringLiteral("[kwb-worker] compiling candidate\n[kwb-worker] running trial 0\n"
                                   "Fatal Python error: Segmentation fault\n\nCurrent thread 0x00007f (most recent call first):\n"
                                   "  File \"candidate.py\", line 88 in forward\n");
    add(candidate(*w, CandidateKind::Repair, seed1, QStringLiteral("seed1_repair1")), crash);

    EvalResult wrong = eval(EvalStatus::WrongResult, 2.1, 0.03);
    wrong.reason = QStringLiteral("output 0 differs from the reference: max abs err 0.459 > atol 1e-4 (trial 0)");
    wrong.maxAbsErr = 0.459;
    wrong.meanAbsErr = 0.051;
    wrong.maxAbsErrFp64 = 0.459;
    wrong.failingTrial = 0;
    const QString algo = add(candidate(*w, CandidateKind::AlgoOpt, seed1, QStringLiteral("algorithm_optimized_seed1")), wrong);

    EvalResult good = eval(EvalStatus::Ok, 2.13, 0.02);
    good.maxAbsErr = 2.2e-7;
    good.meanAbsErr = 2.0e-8;
    good.maxAbsErrFp64 = 1.8e-7;
    good.candidatePeakBytes = 281 * MiB;
    good.referencePeakBytes = 262 * MiB;
    good.memoryNote = QStringLiteral("fp64 reference on the device");
    good.profile = {{QStringLiteral("launches"), 1}, {QStringLiteral("registers_per_thread"), 128},
                    {QStringLiteral("dram_throughput_pct"), 3.1}, {QStringLiteral("sm_throughput_pct"), 41.5}};
    Verdict timer;
    timer.detector = QStringLiteral("runtime.implausible_speedup");
    timer.outcome = Outcome::Yes;
    timer.severity = Severity::Warning;
    timer.summary = QStringLiteral("4.2x the CUDA graph is above the plausibility bound for this task; re-timed: same");
    Verdict cached;
    cached.detector = QStringLiteral("runtime.cached_output");
    cached.outcome = Outcome::No;
    cached.summary = QStringLiteral("fresh inputs give fresh outputs");
    good.runtimeChecks = {cached, timer};
    const QString repair = add(candidate(*w, CandidateKind::Repair, algo, QStringLiteral("algorithm_optimized_seed1_repair1")), good);

    EvalResult same = eval(EvalStatus::Ok, 9.0, 0.1);
    same.maxAbsErr = 2.0e-7;
    add(candidate(*w, CandidateKind::StageGrid, repair, QStringLiteral("stage_grid")), same);

    EvalResult compile = eval(EvalStatus::CompileError);
    compile.reason = QStringLiteral("AttributeError: module 'triton.language' has no attribute 'tanh'");
    compile.logTail = QStringLiteral("  File \"candidate.py\", line 41, in _gru_step\n    h = tl.tanh(n)\n"
                                     "AttributeError: module 'triton.language' has no attribute 'tanh'\n");
    add(candidate(*w, CandidateKind::StageBlock, repair, QStringLiteral("stage_block")), compile);

    RunInfo done = w->run().info;
    done.state = RunState::Failed;
    w->updateInfo(done);
    w->writeSnapshot();
    StandardRun out;
    out.dir = w->directory();
    out.run = w->run();
    w.reset();
    return out;
}

} // namespace kwb::fixture
