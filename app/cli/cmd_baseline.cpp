// SPDX-License-Identifier: MIT
// `kwb baseline TASK [options]`: time the reference (PyTorch eager and, on a GPU, a CUDA graph).
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

int kwb::cli::runBaseline(const QStringList &args)
{
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral(
        "Time a task's reference: PyTorch eager and the same call captured in a CUDA graph (GPU only). Results "
        "are cached per task, device, torch version and settings.\nTASK is a task file or a task name from `kwb tasks`."));
    p.addHelpOption();
    p.addPositionalArgument(QStringLiteral("TASK"), QStringLiteral("task file or name"));
    const QCommandLineOption device(QStringLiteral("device"), QStringLiteral("auto, cpu or cuda (default auto)"), QStringLiteral("D"), QStringLiteral("auto"));
    const QCommandLineOption warmup(QStringLiteral("warmup"), QStringLiteral("warm-up runs (default 3)"), QStringLiteral("N"), QStringLiteral("3"));
    const QCommandLineOption repeat(QStringLiteral("repeat"), QStringLiteral("timed rounds (default 0: the judge's own count, 20 on a GPU, 15-45 on a CPU by the task's speed)"), QStringLiteral("N"), QStringLiteral("0"));
    const QCommandLineOption timeout(QStringLiteral("timeout"), QStringLiteral("run limit in seconds (default 600)"), QStringLiteral("SECONDS"), QStringLiteral("600"));
    const QCommandLineOption noCache(QStringLiteral("no-cache"), QStringLiteral("measure again, ignoring the cache"));
    const QCommandLineOption python(QStringLiteral("python"), QStringLiteral("Python interpreter for the worker"), QStringLiteral("PATH"));
    const QCommandLineOption json(QStringLiteral("json"), QStringLiteral("print the result as JSON"));
    p.addOptions({device, warmup, repeat, timeout, noCache, python, json});
    if (const auto done = parseCommandLine(p, "baseline", args))
        return *done;
    const QStringList pos = p.positionalArguments();
    if (pos.size() != 1) {
        err() << "kwb baseline: expected one TASK (see kwb baseline --help)\n";
        return UsageError;
    }
    EvalRequest req;
    OptionReader read(p, "baseline");
    req.device = read.device(device);
    req.warmup = read.integer(warmup, 0);
    req.repeat = read.integer(repeat, 0);
    req.runTimeoutSec = read.integer(timeout, 1);
    req.python = p.value(python);
    if (!read.ok())
        return UsageError;

    QString error;
    const auto task = TaskIndex::resolve(pos.at(0), &error);
    if (!task) {
        err() << "kwb baseline: " << error << (error.startsWith(QLatin1String("no task file")) ? " (see kwb tasks)" : "") << "\n";
        return InputError;
    }
    req.taskFile = task->path;

    Evaluator ev;
    ev.setPrestartEnabled(false);
    InterruptWatcher interrupt;
    QString jobId;
    QObject::connect(&ev, &Evaluator::phaseChanged, &ev, [&](const QString &id, const QString &) { jobId = id; });
    QObject::connect(&interrupt, &InterruptWatcher::interrupted, &ev, [&] { ev.cancel(jobId); });
    const EvalResult r = ev.baselineBlocking(req, !p.isSet(noCache));

    int rc = Failure;
    if (r.status == EvalStatus::Ok)
        rc = Success;
    else if (r.status == EvalStatus::Cancelled)
        rc = Interrupted;
    else if (r.status == EvalStatus::InternalError || r.status == EvalStatus::NoGpu)
        rc = EnvironmentError;

    if (p.isSet(json)) {
        QJsonObject o = json::toJson(r);
        o.insert(QStringLiteral("task"), task->name);
        o.insert(QStringLiteral("task_file"), task->path);
        o.insert(QStringLiteral("cached"), r.reason.startsWith(QLatin1String("cached")));
        out() << QJsonDocument(o).toJson(QJsonDocument::Indented);
        return rc;
    }
    out() << evaltext::statusLine(r) << "\n";
    out() << "  " << task->name << " | " << evaltext::contextLine(r) << "\n";
    if (r.eager.isValid())
        out() << evaltext::timingTable(r) << "\n";
    if (r.eager.isValid() && r.graph.isValid())
        out() << "  eager / CUDA graph: " << evaltext::speedup(r.eager.medianMs / r.graph.medianMs) << "\n";
    if (rc != Success && !r.logTail.isEmpty())
        out() << "--- log tail ---\n" << r.logTail << "\n";
    return rc;
}
