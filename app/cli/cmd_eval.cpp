// SPDX-License-Identifier: MIT
// `kwb eval TASK CANDIDATE [options]`: check a candidate against its task and time it.
#include "commands.h"
#include "optionreader.h"

#include "eval/evaluator.h"
#include "eval/evaltext.h"
#include "eval/interruptwatcher.h"
#include "model/json.h"
#include "tasks/taskindex.h"

#include <QCommandLineParser>
#include <QFileInfo>
#include <QJsonDocument>

namespace kwb::cli {

namespace {

/// Exit code for an evaluation's outcome (see commands.h).
int exitCodeFor(const EvalResult &r)
{
    switch (r.status) {
    case EvalStatus::Ok: return Success;
    case EvalStatus::Cancelled: return Interrupted;
    case EvalStatus::NoGpu:
    case EvalStatus::InternalError:
    case EvalStatus::HarnessOutOfMemory: return EnvironmentError;
    default: return Failure;
    }
}

} // namespace

int runEval(const QStringList &args)
{
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral(
        "Check a candidate against its task (correctness trials) and time it next to the PyTorch eager and "
        "CUDA-graph baselines.\nTASK is a task file or a task name from `kwb tasks`."));
    p.addHelpOption();
    p.addPositionalArgument(QStringLiteral("TASK"), QStringLiteral("task file or name"));
    p.addPositionalArgument(QStringLiteral("CANDIDATE"), QStringLiteral("candidate file (.py with class ModelNew)"));
    const QCommandLineOption device(QStringLiteral("device"), QStringLiteral("auto, cpu or cuda (default auto)"), QStringLiteral("D"), QStringLiteral("auto"));
    const QCommandLineOption trials(QStringLiteral("trials"), QStringLiteral("correctness trials (default 5)"), QStringLiteral("N"), QStringLiteral("5"));
    const QCommandLineOption warmup(QStringLiteral("warmup"), QStringLiteral("warm-up runs (default 3)"), QStringLiteral("N"), QStringLiteral("3"));
    const QCommandLineOption repeat(QStringLiteral("repeat"), QStringLiteral("timed rounds (default 0: the judge's own count, 20 on a GPU, 15-45 on a CPU by the task's speed)"), QStringLiteral("N"), QStringLiteral("0"));
    const QCommandLineOption atol(QStringLiteral("atol"), QStringLiteral("absolute tolerance (default 1e-4)"), QStringLiteral("X"), QStringLiteral("1e-4"));
    const QCommandLineOption rtol(QStringLiteral("rtol"), QStringLiteral("relative tolerance (default 1e-4)"), QStringLiteral("X"), QStringLiteral("1e-4"));
    const QCommandLineOption timeout(QStringLiteral("timeout"), QStringLiteral("run limit in seconds (default 600)"), QStringLiteral("SECONDS"), QStringLiteral("600"));
    const QCommandLineOption compileTimeout(QStringLiteral("compile-timeout"), QStringLiteral("compile limit in seconds (default 300)"), QStringLiteral("SECONDS"), QStringLiteral("300"));
    const QCommandLineOption profile(QStringLiteral("profile"), QStringLiteral("collect Nsight Compute metrics"));
    const QCommandLineOption noBaselines(QStringLiteral("no-baselines"), QStringLiteral("do not time the reference"));
    const QCommandLineOption python(QStringLiteral("python"), QStringLiteral("Python interpreter for the worker"), QStringLiteral("PATH"));
    const QCommandLineOption json(QStringLiteral("json"), QStringLiteral("print the result as JSON"));
    p.addOptions({device, trials, warmup, repeat, atol, rtol, timeout, compileTimeout, profile, noBaselines, python, json});
    if (const auto done = parseCommandLine(p, "eval", args))
        return *done;
    const QStringList pos = p.positionalArguments();
    if (pos.size() != 2) {
        err() << "kwb eval: expected TASK and CANDIDATE (see kwb eval --help)\n";
        return UsageError;
    }

    EvalRequest req;
    OptionReader read(p, "eval");
    req.device = read.device(device);
    req.trials = read.integer(trials, 1);
    req.warmup = read.integer(warmup, 0);
    req.repeat = read.integer(repeat, 0);
    req.atol = read.nonNegative(atol);
    req.rtol = read.nonNegative(rtol);
    req.runTimeoutSec = read.integer(timeout, 1);
    req.compileTimeoutSec = read.integer(compileTimeout, 1);
    req.profile = p.isSet(profile);
    req.baselines = !p.isSet(noBaselines);
    req.graphBaseline = req.baselines;
    req.python = p.value(python);
    if (!read.ok())
        return UsageError;

    QString error;
    const auto task = TaskIndex::resolve(pos.at(0), &error);
    if (!task) {
        err() << "kwb eval: " << error << (error.startsWith(QLatin1String("no task file")) ? " (see kwb tasks)" : "") << "\n";
        return InputError;
    }
    if (!QFileInfo(pos.at(1)).isFile()) {
        err() << "kwb eval: no such candidate file: " << pos.at(1) << "\n";
        return InputError;
    }
    req.taskFile = task->path;
    req.candidateFile = QFileInfo(pos.at(1)).absoluteFilePath();

    Evaluator ev;
    ev.setPrestartEnabled(false); // one evaluation: a spare worker would only steal CPU from the timing
    InterruptWatcher interrupt;
    QString jobId;
    QObject::connect(&interrupt, &InterruptWatcher::interrupted, &ev, [&] { ev.cancel(jobId); });
    const bool asJson = p.isSet(json);
    if (!asJson) {
        QObject::connect(&ev, &Evaluator::phaseChanged, &ev, [](const QString &, const QString &phase) {
            err() << "  ... " << phase << "\n";
            err().flush();
        });
    }
    // evaluateBlocking() owns the job id; cancel() needs it, so take it from the first phase.
    QObject::connect(&ev, &Evaluator::phaseChanged, &ev, [&](const QString &id, const QString &) { jobId = id; });
    const EvalResult r = ev.evaluateBlocking(req);

    if (asJson) {
        QJsonObject o = json::toJson(r);
        o.insert(QStringLiteral("task"), task->name);
        o.insert(QStringLiteral("task_file"), task->path);
        o.insert(QStringLiteral("candidate_file"), req.candidateFile);
        o.insert(QStringLiteral("speedup_vs_eager"), json::number(r.speedupVsEager()));
        o.insert(QStringLiteral("speedup_vs_graph"), json::number(r.speedupVsGraph()));
        out() << QJsonDocument(o).toJson(QJsonDocument::Indented);
        return exitCodeFor(r);
    }
    out() << evaltext::statusLine(r) << "\n";
    out() << "  " << task->name << " | " << QFileInfo(req.candidateFile).fileName() << " | " << evaltext::contextLine(r) << "\n";
    if (r.runnable())
        out() << QStringLiteral("  trials %1, max abs err %2, mean abs err %3")
                     .arg(r.trials)
                     .arg(r.maxAbsErr, 0, 'g', 3)
                     .arg(r.meanAbsErr, 0, 'g', 3)
              << (r.failingTrial >= 0 ? QStringLiteral(", first failing trial %1").arg(r.failingTrial) : QString()) << "\n";
    if (r.candidate.isValid() || r.eager.isValid())
        out() << evaltext::timingTable(r) << "\n";
    for (const Verdict &v : r.runtimeChecks)
        if (v.outcome == Outcome::Yes)
            out() << "  check " << v.detector << " (" << toName(v.severity) << "): " << v.summary << "\n";
    if (req.profile) // the metrics and the roofline, as the analysis prompt shows them
        for (const QString &line : profilePromptText(KernelProfile::fromEval(r)).split(u'\n'))
            out() << "  " << line << "\n";
    if (!r.correct() && !r.logTail.isEmpty())
        out() << "--- log tail ---\n" << r.logTail << "\n";
    return exitCodeFor(r);
}

} // namespace kwb::cli
