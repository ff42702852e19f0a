// SPDX-License-Identifier: MIT
// kwb run: the optimization pipeline, headless, with gates answered automatically or at the terminal.
#include "commands.h"
#include "optionreader.h"
#include "runoptions.h"

#include "env/locations.h"
#include "eval/evaluator.h"
#include "llm/providerconfig.h"
#include "llm/replayprovider.h"
#include "llm/tokens.h"
#include "pipeline/cassettes.h"
#include "pipeline/decider.h"
#include "pipeline/pipeline.h"
#include "pipeline/runsetup.h"
#include "pipeline/runsummary.h"
#include "store/runstore.h"
#include "tasks/taskindex.h"

#include <QCommandLineParser>
#include <QFileInfo>

#include <cstdio>

namespace kwb::cli {

int runRun(const QStringList &args)
{
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral("Run the optimization pipeline on a task."));
    p.addPositionalArgument(QStringLiteral("TASK"), QStringLiteral("task file or task name (not needed with --resume)"));
    addRunOptions(p);
    p.addOptions({
        {QStringLiteral("record-cassette"), QStringLiteral("write the run's exchanges as a cassette (with prompt hashes of the current templates)"), QStringLiteral("FILE")},
        {QStringLiteral("resume"), QStringLiteral("continue an interrupted run"), QStringLiteral("RUN_DIR")},
    });
    p.addHelpOption();
    if (const auto done = parseCommandLine(p, "run", args))
        return *done;
    const QString resume = p.value(QStringLiteral("resume"));
    if (p.positionalArguments().size() != 1 && resume.isEmpty()) {
        err() << "kwb run: give one TASK (a file or a task name), or --resume RUN_DIR\n";
        return UsageError;
    }

    pipeline::PipelineConfig cfg;
    std::optional<Run> previous;
    if (!resume.isEmpty()) {
        QString e;
        previous = store::openRun(resume, &e);
        if (!previous) {
            err() << "kwb run: " << e << "\n";
            return InputError;
        }
        cfg.resumeDir = resume;
        cfg.taskFile = previous->info.taskFile;
    } else {
        QString e;
        cfg.taskFile = pipeline::resolveTaskFile(p.positionalArguments().first(), &e);
        if (cfg.taskFile.isEmpty()) {
            err() << "kwb run: " << e << "\n";
            return InputError;
        }
    }
    if (QString e; previous && !TaskIndex::fromFile(cfg.taskFile, &e)) {
        err() << "kwb run: " << e << "\n";
        return InputError;
    }

    pipeline::ProviderRequest request;
    bool interactive = false;
    if (const auto bad = readRunOptions(p, "run", cfg, request, &interactive))
        return *bad;
    std::unique_ptr<EvalBackend> evaluator;
    if (scriptedEvalScript().isEmpty())
        evaluator = std::make_unique<Evaluator>();
    else if (!(evaluator = scriptedEvaluator("run")))
        return InputError;

    // The provider: a cassette, a named provider, or the default one; with no key, the shipped cassette.
    request.taskFile = cfg.taskFile;
    if (request.provider.isEmpty() && previous && request.cassette.isEmpty())
        request.provider = previous->info.provider;
    if (previous && request.cassette.isEmpty()) {
        request.cassette = previous->info.settings.value(QStringLiteral("cassette")).toString();
        request.cassetteIsShipped = !request.cassette.isEmpty();
    }
    request.lenient = request.lenient || p.isSet(QStringLiteral("record-cassette"));
    pipeline::ProviderSetup setup = pipeline::setUpProvider(request);
    if (!setup) {
        err() << "kwb run: " << setup.errorText << "\n";
        switch (setup.error) {
        case pipeline::ProviderSetupError::UnknownProvider: return UsageError;
        case pipeline::ProviderSetupError::NoApiKey: return EnvironmentError;
        default: return InputError;
        }
    }
    if (!setup.missingKeyProvider.isEmpty())
        out() << "no API key for " << setup.missingKeyProvider << ": replaying the shipped cassette " << setup.cassette << "\n"
              << "  (answers authored by the Kernel Workbench developers; prompts matched leniently, since "
                 "they hold measured latencies and this machine's device name)\n";
    cfg.cassette = setup.cassette;
    const QString cassette = setup.cassette;
    auto &provider = setup.provider;
    if (auto *replay = qobject_cast<llm::ReplayProvider *>(provider.get())) {
        out() << "replay: " << setup.cassette
              << (setup.authoredBy.isEmpty() ? QString() : QStringLiteral(" (authored by ") + setup.authoredBy + QLatin1Char(')'))
              << (setup.config.replayLenient ? QStringLiteral(", lenient prompt matching") : QString()) << "\n";
        if (!setup.shippedReplay)
            QObject::connect(replay, &llm::ReplayProvider::mismatchIgnored, [](const QString &report) {
            out() << "  replay: prompt differs from the recording (served anyway): " << report.section(QLatin1Char('\n'), 0, 0) << "\n";
            out().flush();
        });
    }

    pipeline::Pipeline pipe(cfg, provider.get(), evaluator.get());
    QTextStream in(stdin);
    pipeline::TerminalDecider terminal(in, out());
    pipeline::AutomaticDecider automatic;
    pipe.setDecider(interactive ? static_cast<pipeline::Decider *>(&terminal) : &automatic);
    QObject::connect(&pipe, &pipeline::Pipeline::logLine, [](const QString &l) {
        out() << l << "\n";
        out().flush();
    });
    QString serr;
    const RunState state = pipe.runBlocking(&serr);
    if (!serr.isEmpty()) {
        err() << "kwb run: " << serr << "\n";
        return InputError;
    }
    out() << "\n" << pipeline::formatRunSummary(pipe.run()) << "\n";
    out() << llm::formatTokenTable(llm::tokenTable(pipe.run().exchanges)) << "\n";
    out() << "run directory: " << pipe.runDirectory() << "\n";

    const QString record = p.value(QStringLiteral("record-cassette"));
    if (!record.isEmpty()) {
        QString cerr;
        if (!pipeline::recordCassette(pipe.run(), cassette, record, &cerr)) {
            err() << "kwb run: " << cerr << "\n";
            return Failure;
        }
        out() << "cassette written: " << record << "\n";
    }
    return state == RunState::Finished ? Success : (state == RunState::Stopped ? Interrupted : Failure);
}

} // namespace kwb::cli
