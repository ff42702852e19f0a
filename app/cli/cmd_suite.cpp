// SPDX-License-Identifier: MIT
// kwb suite: many tasks at once over the GPUs of the host (or a Slurm cluster), one run each.
#include "commands.h"
#include "optionreader.h"
#include "runoptions.h"

#include "env/locations.h"
#include "suite/lanepool.h"
#include "suite/suite.h"
#include "suite/suitereport.h"
#include "suite/suiterunner.h"

#include <QCommandLineParser>
#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QSocketNotifier>

#include <cmath>
#include <csignal>
#include <sys/socket.h>
#include <unistd.h>

namespace kwb::cli {

namespace {

QString speed(double v)
{
    return std::isfinite(v) ? QString::number(v, 'f', 2) + QLatin1Char('x') : QStringLiteral("-");
}

QString progress(const suite::Suite &s)
{
    const auto t = suite::totals(s);
    return QStringLiteral("[%1/%2 done, %3 running, %4 failing]")
        .arg(t.done)
        .arg(t.tasks)
        .arg(t.running)
        .arg(std::count_if(s.entries.cbegin(), s.entries.cend(), [](const suite::SuiteEntry &e) { return e.done() && e.failing(); }));
}

QString stateLine(const suite::SuiteEntry &e)
{
    QString line = e.taskName + QStringLiteral(": ") + toName(e.state);
    if (e.state == suite::EntryState::Running)
        line += QStringLiteral(" (") + e.runDir + QLatin1Char(')');
    if (e.done()) {
        line += e.correct ? QStringLiteral(", best %1 at %2 vs eager, %3 vs graph").arg(e.bestCandidateId, speed(e.speedupVsEager), speed(e.speedupVsGraph))
                          : QStringLiteral(", no correct candidate");
        if (e.flagged())
            line += QStringLiteral(", flagged: ") + e.integrityFlags.join(QLatin1Char(','));
        if (!e.failureReason.isEmpty())
            line += QStringLiteral(" (") + e.failureReason + QLatin1Char(')');
    }
    return line;
}

QString finalTable(const suite::Suite &s)
{
    QString text;
    QTextStream t(&text);
    t << QStringLiteral("%1 %2 %3 %4 %5 %6 %7 %8 %9  %10\n")
             .arg(QStringLiteral("task"), -28)
             .arg(QStringLiteral("state"), -9)
             .arg(QStringLiteral("correct"), -7)
             .arg(QStringLiteral("x eager"), 8)
             .arg(QStringLiteral("x graph"), 8)
             .arg(QStringLiteral("cands"), 5)
             .arg(QStringLiteral("tokens"), 8)
             .arg(QStringLiteral("time s"), 7)
             .arg(QStringLiteral("flags"), -12)
             .arg(QStringLiteral("reason"));
    for (const auto &e : suite::sortedFailingFirst(s.entries))
        t << QStringLiteral("%1 %2 %3 %4 %5 %6 %7 %8 %9  %10\n")
                 .arg(e.taskName.left(28), -28)
                 .arg(toName(e.state), -9)
                 .arg(e.correct ? QStringLiteral("yes") : QStringLiteral("no"), -7)
                 .arg(speed(e.speedupVsEager), 8)
                 .arg(speed(e.speedupVsGraph), 8)
                 .arg(e.candidates, 5)
                 .arg(e.tokens, 8)
                 .arg(QString::number(e.wallSeconds, 'f', 1), 7)
                 .arg(e.flagged() ? e.integrityFlags.join(QLatin1Char(',')).left(12) : QStringLiteral("-"), -12)
                 .arg(e.failureReason);
    const auto tot = suite::totals(s);
    t << QStringLiteral("%1 tasks: %2 correct, %3 faster than eager, %4 faster than the CUDA graph, %5 flagged; "
                        "geomean %6 vs eager, %7 vs graph; %8 tokens, $%9\n")
             .arg(tot.tasks)
             .arg(tot.correct)
             .arg(tot.fasterThanEager)
             .arg(tot.fasterThanGraph)
             .arg(tot.flagged)
             .arg(speed(tot.geomeanVsEager), speed(tot.geomeanVsGraph))
             .arg(tot.tokens)
             .arg(QString::number(tot.costUsd, 'f', 4));
    return text;
}

// SIGINT/SIGTERM: stop the runs after their current step (they stay resumable).
int g_signalFd[2] = {-1, -1};
void onSignal(int)
{
    const char c = 1;
    [[maybe_unused]] auto n = ::write(g_signalFd[1], &c, 1);
}

} // namespace

int runSuite(const QStringList &args)
{
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral(
        "Run the pipeline on many tasks at once: one run per task, up to --jobs at a time, one evaluation per GPU "
        "at a time (each GPU a lane), or evaluations as Slurm jobs. Folders are scanned recursively."));
    p.addPositionalArgument(QStringLiteral("TASK_OR_DIR"), QStringLiteral("task files, task names or folders"), QStringLiteral("TASK_OR_DIR..."));
    addRunOptions(p);
    const QCommandLineOption jobsOpt(QStringLiteral("jobs"), QStringLiteral("runs at the same time (default 1)"), QStringLiteral("N"));
    const QCommandLineOption gpusOpt(QStringLiteral("gpus"), QStringLiteral("GPU lanes: all (default) or a list of device ids, e.g. 0,1"), QStringLiteral("LIST"));
    const QCommandLineOption backendOpt(QStringLiteral("backend"), QStringLiteral("where evaluations run: local (default) or slurm"), QStringLiteral("B"));
    const QCommandLineOption dirOpt(QStringLiteral("suite-dir"), QStringLiteral("the suite directory (default RUNS_DIR/suite-DATE-TIME)"), QStringLiteral("DIR"));
    const QCommandLineOption resumeOpt(QStringLiteral("resume"), QStringLiteral("continue a suite: finished tasks are kept"), QStringLiteral("SUITE_DIR"));
    const QCommandLineOption timeoutOpt(QStringLiteral("task-timeout"), QStringLiteral("abort a run after this many seconds (0: no limit)"), QStringLiteral("S"));
    const QCommandLineOption verboseOpt(QStringLiteral("verbose"), QStringLiteral("print every run's log lines too"));
    const QCommandLineOption partOpt(QStringLiteral("slurm-partition"), QStringLiteral("Slurm partition"), QStringLiteral("NAME"));
    const QCommandLineOption accOpt(QStringLiteral("slurm-account"), QStringLiteral("Slurm account"), QStringLiteral("NAME"));
    const QCommandLineOption timeOpt(QStringLiteral("slurm-time"), QStringLiteral("time limit per evaluation job (default 00:30:00)"), QStringLiteral("T"));
    const QCommandLineOption gresOpt(QStringLiteral("slurm-gres"), QStringLiteral("generic resources per job (default gpu:1; 'none' for CPU partitions)"), QStringLiteral("GRES"));
    const QCommandLineOption sbatchOpt(QStringLiteral("slurm-option"), QStringLiteral("an extra sbatch option (repeatable), e.g. --qos=high"), QStringLiteral("OPT"));
    const QCommandLineOption exchOpt(QStringLiteral("slurm-dir"), QStringLiteral("exchange folder both sides see (default SUITE_DIR/slurm)"), QStringLiteral("DIR"));
    const QCommandLineOption binOpt(QStringLiteral("slurm-kwb"), QStringLiteral("the kwb binary the jobs run (default this one)"), QStringLiteral("PATH"));
    p.addOptions({jobsOpt, gpusOpt, backendOpt, dirOpt, resumeOpt, timeoutOpt, verboseOpt, partOpt, accOpt, timeOpt, gresOpt,
                  sbatchOpt, exchOpt, binOpt});
    p.addHelpOption();
    if (const auto done = parseCommandLine(p, "suite", args))
        return *done;

    const QString resumeDir = p.value(resumeOpt);
    suite::SuiteConfig cfg;
    if (!resumeDir.isEmpty()) {
        QString e;
        const auto s = suite::readSuite(resumeDir, &e);
        if (!s) {
            err() << "kwb suite: " << e << "\n";
            return InputError;
        }
        cfg = suite::SuiteConfig::fromJson(s->settings);
        cfg.suiteDir = QFileInfo(resumeDir).absoluteFilePath();
        if (!p.positionalArguments().isEmpty()) {
            err() << "kwb suite: --resume continues the suite's own tasks; give no TASK_OR_DIR with it\n";
            return UsageError;
        }
    } else if (p.positionalArguments().isEmpty()) {
        err() << "kwb suite: give tasks or folders (TASK_OR_DIR...), or --resume SUITE_DIR\n";
        return UsageError;
    }

    bool interactive = false;
    const auto gatePolicy = cfg.pipeline.gatePolicy;
    if (const auto bad = readRunOptions(p, "suite", cfg.pipeline, cfg.provider, &interactive))
        return *bad;
    if (interactive) {
        err() << "kwb suite: --interactive is for one run (kwb run); a suite answers its gates automatically "
                 "(--gates records them)\n";
        return UsageError;
    }
    if (!resumeDir.isEmpty() && !p.isSet(QStringLiteral("gates")) && !p.isSet(QStringLiteral("auto")))
        cfg.pipeline.gatePolicy = gatePolicy;
    OptionReader reader(p, "suite");
    if (p.isSet(jobsOpt))
        cfg.jobs = reader.integer(jobsOpt, 1);
    if (p.isSet(timeoutOpt))
        cfg.taskTimeoutSec = reader.integer(timeoutOpt, 0);
    if (!reader.ok())
        return UsageError;
    if (p.isSet(backendOpt)) {
        cfg.backend = p.value(backendOpt);
        if (cfg.backend != QLatin1String("local") && cfg.backend != QLatin1String("slurm")) {
            err() << "kwb suite: --backend takes local or slurm, got '" << cfg.backend << "'\n";
            return UsageError;
        }
    }
    if (p.isSet(gpusOpt) || resumeDir.isEmpty()) {
        const QString g = p.isSet(gpusOpt) ? p.value(gpusOpt) : QStringLiteral("all");
        if (g == QLatin1String("all")) {
            cfg.gpus = suite::hostGpus();
        } else {
            cfg.gpus.clear();
            for (const auto &id : g.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
                bool good = false;
                id.trimmed().toInt(&good);
                if (!good) {
                    err() << "kwb suite: --gpus takes all or device ids like 0,1; got '" << g << "'\n";
                    return UsageError;
                }
                cfg.gpus << id.trimmed();
            }
        }
    }
    auto &sl = cfg.slurm;
    if (p.isSet(partOpt))
        sl.partition = p.value(partOpt);
    if (p.isSet(accOpt))
        sl.account = p.value(accOpt);
    if (p.isSet(timeOpt))
        sl.timeLimit = p.value(timeOpt);
    if (p.isSet(gresOpt))
        sl.gres = p.value(gresOpt) == QLatin1String("none") ? QString() : p.value(gresOpt);
    if (p.isSet(sbatchOpt))
        sl.extraArgs = p.values(sbatchOpt);
    if (p.isSet(exchOpt))
        sl.exchangeDir = QFileInfo(p.value(exchOpt)).absoluteFilePath();
    if (p.isSet(binOpt))
        sl.kwbBinary = QFileInfo(p.value(binOpt)).absoluteFilePath();

    QStringList tasks;
    if (resumeDir.isEmpty()) {
        QString e;
        QStringList skipped;
        tasks = suite::collectTasks(p.positionalArguments(), &e, &skipped);
        if (tasks.isEmpty()) {
            err() << "kwb suite: " << e << "\n";
            return InputError;
        }
        for (const auto &s : std::as_const(skipped))
            out() << "skipped (not a task): " << s << "\n";
        cfg.suiteDir = p.isSet(dirOpt) ? QFileInfo(p.value(dirOpt)).absoluteFilePath()
                                       : QDir(cfg.pipeline.runsDir)
                                             .absoluteFilePath(QStringLiteral("suite-") +
                                                               QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss")));
    }

    const bool scripted = !scriptedEvalScript().isEmpty();
    if (scripted) {
        if (cfg.backend != QLatin1String("local")) {
            err() << "kwb suite: $KWB_SCRIPTED_EVAL answers the local backend's evaluations only, not --backend "
                  << cfg.backend << "\n";
            return UsageError;
        }
        if (!scriptedEvaluator("suite")) // read once here, so that a bad script stops the suite before it starts
            return InputError;
    }

    suite::SuiteRunner runner(cfg);
    if (scripted)
        runner.setLocalBackendFactory([] { return scriptedEvaluator("suite", false).release(); });
    QHash<int, suite::EntryState> shown;
    QObject::connect(&runner, &suite::SuiteRunner::entryChanged, [&](int i, const suite::SuiteEntry &e) {
        if (shown.value(i, suite::EntryState::Pending) == e.state && !(e.state == suite::EntryState::Pending))
            return;
        shown.insert(i, e.state);
        out() << progress(runner.suite()) << " " << stateLine(e) << "\n";
        out().flush();
    });
    const bool verbose = p.isSet(verboseOpt);
    QObject::connect(&runner, &suite::SuiteRunner::logLine, [verbose](const QString &l) {
        if (verbose || l.contains(QLatin1String("] failed: ")) || l.startsWith(QLatin1String("[suite]"))) {
            out() << "  " << l << "\n";
            out().flush();
        }
    });

    if (::socketpair(AF_UNIX, SOCK_STREAM, 0, g_signalFd) == 0) {
        auto *notifier = new QSocketNotifier(g_signalFd[0], QSocketNotifier::Read, &runner);
        QObject::connect(notifier, &QSocketNotifier::activated, [&runner] {
            char c;
            [[maybe_unused]] auto n = ::read(g_signalFd[0], &c, 1);
            out() << "stopping: the runs end after their current step (resume with --resume)\n";
            out().flush();
            runner.stop();
        });
        std::signal(SIGINT, onSignal);
        std::signal(SIGTERM, onSignal);
    }

    out() << "suite: " << cfg.suiteDir << "\n"
          << (resumeDir.isEmpty() ? QStringLiteral("  %1 tasks, ").arg(tasks.size()) : QStringLiteral("  resuming, "))
          << cfg.jobs << " at a time, backend " << cfg.backend << ", "
          << (cfg.backend == QLatin1String("slurm") ? QStringLiteral("evaluations as Slurm jobs")
              : scripted ? QStringLiteral("one lane (scripted evaluations)")
              : cfg.gpus.isEmpty() || cfg.pipeline.eval.device == QLatin1String("cpu")
                  ? QStringLiteral("one lane (device %1)").arg(cfg.pipeline.eval.device)
                  : QStringLiteral("GPU lanes %1").arg(cfg.gpus.join(QLatin1Char(','))))
          << "\n";
    out().flush();
    QString e;
    if (!runner.runBlocking(tasks, !resumeDir.isEmpty(), &e)) {
        err() << "kwb suite: " << e << "\n";
        return InputError;
    }
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
    out() << "\n" << finalTable(runner.suite());
    out() << "suite directory: " << cfg.suiteDir << "\n";
    QString reportError;
    const QStringList reports = suite::writeSuiteReports(cfg.suiteDir, runner.suite(), &reportError);
    if (reports.isEmpty())
        err() << "kwb suite: no report: " << reportError << "\n";
    else
        out() << "report: " << reports.join(QStringLiteral(", ")) << "\n";
    bool stopped = false, failing = false;
    for (const auto &en : runner.suite().entries) {
        stopped = stopped || !en.done();
        failing = failing || en.failing();
    }
    return stopped ? Interrupted : (failing ? Failure : Success);
}

} // namespace kwb::cli
