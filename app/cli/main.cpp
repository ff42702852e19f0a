// SPDX-License-Identifier: MIT
// kwb: the headless front-end of Kernel Workbench.
#include "commands.h"

#include <QCoreApplication>

#include <functional>
#include <map>

namespace kwb::cli {

QTextStream &out()
{
    static QTextStream s(stdout);
    return s;
}

QTextStream &err()
{
    static QTextStream s(stderr);
    return s;
}

} // namespace kwb::cli

namespace {

struct Command {
    std::function<int(const QStringList &)> run;
    const char *synopsis;
};

const std::map<QString, Command> &commands()
{
    using namespace kwb::cli;
    static const std::map<QString, Command> table{
        {QStringLiteral("tasks"), {runTasks, "tasks [DIR...] [--json]          list the task library"}},
        {QStringLiteral("baseline"), {runBaseline, "baseline TASK [options]         time the reference (eager, CUDA graph)"}},
        {QStringLiteral("eval"), {runEval, "eval TASK CANDIDATE [options]   check and time a candidate"}},
        {QStringLiteral("show"), {runShow, "show RUN [--json|--markdown|--html FILE]  print a run's tree or a report"}},
        {QStringLiteral("detect"), {runDetect, "detect TASK CANDIDATE [--json]  run the detectors on a file"}},
        {QStringLiteral("run"), {runRun, "run TASK [options]              run the optimization pipeline"}},
        {QStringLiteral("suite"), {runSuite, "suite TASK_OR_DIR... [options]  run the pipeline on many tasks (GPU lanes, Slurm)"}},
    };
    return table;
}

int usage(QTextStream &s)
{
    s << "usage: kwb COMMAND [ARGS...]\n\ncommands:\n";
    for (const auto &[name, cmd] : commands())
        s << "  " << cmd.synopsis << "\n";
    s << "\n`kwb COMMAND --help` describes a command's options.\n";
    s.flush();
    return kwb::cli::UsageError;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("kernel-workbench"));
    QCoreApplication::setApplicationVersion(QStringLiteral(KWB_VERSION));
    QStringList args = app.arguments().mid(1);
    if (args.isEmpty())
        return usage(kwb::cli::err());
    const QString name = args.takeFirst();
    if (name == QLatin1String("--help") || name == QLatin1String("-h") || name == QLatin1String("help")) {
        usage(kwb::cli::out());
        return kwb::cli::Success;
    }
    if (name == QLatin1String("--version")) {
        kwb::cli::out() << "kwb " << KWB_VERSION << "\n";
        return kwb::cli::Success;
    }
    const auto it = commands().find(name);
    if (it == commands().end()) {
        kwb::cli::err() << "kwb: unknown command '" << name << "'\n";
        return usage(kwb::cli::err());
    }
    const int rc = it->second.run(args);
    kwb::cli::out().flush();
    kwb::cli::err().flush();
    return rc;
}
