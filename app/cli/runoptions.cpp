// SPDX-License-Identifier: MIT
#include "runoptions.h"

#include "commands.h"
#include "env/locations.h"
#include "eval/scriptedevaluator.h"

namespace kwb::cli {

void addRunOptions(QCommandLineParser &p)
{
    p.addOptions({
        {QStringLiteral("provider"), QStringLiteral("LLM provider (openai, deepseek, anthropic, ollama, ..., replay)"), QStringLiteral("P")},
        {QStringLiteral("model"), QStringLiteral("model name"), QStringLiteral("M")},
        {QStringLiteral("seeds"), QStringLiteral("seed generations (default 2)"), QStringLiteral("N")},
        {QStringLiteral("max-repairs"), QStringLiteral("repairs per candidate (default 3)"), QStringLiteral("N")},
        {QStringLiteral("threshold"), QStringLiteral("analyse seeds scoring below this (default 1.0)"), QStringLiteral("X")},
        {QStringLiteral("auto"), QStringLiteral("fully automatic (no gates)")},
        {QStringLiteral("interactive"), QStringLiteral("answer the gates at the terminal (default gates: all)")},
        {QStringLiteral("gates"), QStringLiteral("gate policy: all, failures, none"), QStringLiteral("POLICY")},
        {QStringLiteral("runs-dir"), QStringLiteral("where runs go (default $KWB_RUNS_DIR or ./runs)"), QStringLiteral("DIR")},
        {QStringLiteral("device"), QStringLiteral("auto, cpu or cuda"), QStringLiteral("D")},
        {QStringLiteral("trials"), QStringLiteral("correctness trials"), QStringLiteral("N")},
        {QStringLiteral("repeat"), QStringLiteral("timed rounds (default 0: the judge's own count)"), QStringLiteral("N")},
        {QStringLiteral("no-stages"), QStringLiteral("stop after selecting the best (no grid/block/memory stages)")},
        {QStringLiteral("no-profile"), QStringLiteral("do not profile the analysed candidates with Nsight Compute")},
        {QStringLiteral("cassette"), QStringLiteral("replay the answers of this cassette"), QStringLiteral("FILE")},
        {QStringLiteral("lenient"), QStringLiteral("replay even when a prompt differs from the recorded one")},
    });
}

std::optional<int> readRunOptions(const QCommandLineParser &p, const char *command, pipeline::PipelineConfig &cfg,
                                  pipeline::ProviderRequest &request, bool *interactive)
{
    bool ok = true;
    auto intOpt = [&](const char *name, int &target) {
        if (p.isSet(QString::fromLatin1(name))) {
            bool good = false;
            const int v = p.value(QString::fromLatin1(name)).toInt(&good);
            if (!good || v < 0) {
                err() << "kwb " << command << ": --" << name << " needs a number\n";
                ok = false;
            }
            target = v;
        }
    };
    intOpt("seeds", cfg.seeds);
    intOpt("max-repairs", cfg.maxRepairs);
    intOpt("trials", cfg.eval.trials);
    intOpt("repeat", cfg.eval.repeat);
    if (p.isSet(QStringLiteral("threshold")))
        cfg.scoreThreshold = p.value(QStringLiteral("threshold")).toDouble(&ok);
    if (!ok)
        return UsageError;
    if (p.isSet(QStringLiteral("device")))
        cfg.eval.device = p.value(QStringLiteral("device"));
    if (p.isSet(QStringLiteral("no-stages")))
        cfg.stages = false;
    if (p.isSet(QStringLiteral("no-profile")))
        cfg.profile = false;
    cfg.runsDir = env::runsDir(p.value(QStringLiteral("runs-dir")));
    const bool inter = p.isSet(QStringLiteral("interactive"));
    if (inter && p.isSet(QStringLiteral("auto"))) {
        err() << "kwb " << command << ": --auto and --interactive exclude each other\n";
        return UsageError;
    }
    if (interactive)
        *interactive = inter;
    cfg.gatePolicy = inter ? pipeline::GatePolicy::All : pipeline::GatePolicy::None;
    if (p.isSet(QStringLiteral("gates"))) {
        const auto g = pipeline::gatePolicyFromString(p.value(QStringLiteral("gates")));
        if (!g) {
            err() << "kwb " << command << ": --gates takes all, failures or none\n";
            return UsageError;
        }
        cfg.gatePolicy = *g;
    }
    if (p.isSet(QStringLiteral("cassette")))
        request.cassette = p.value(QStringLiteral("cassette"));
    if (p.isSet(QStringLiteral("provider")))
        request.provider = p.value(QStringLiteral("provider"));
    if (p.isSet(QStringLiteral("model")))
        request.model = p.value(QStringLiteral("model"));
    if (p.isSet(QStringLiteral("lenient")))
        request.lenient = true;
    return std::nullopt;
}

QString scriptedEvalScript()
{
    return qEnvironmentVariable("KWB_SCRIPTED_EVAL");
}

std::unique_ptr<EvalBackend> scriptedEvaluator(const char *command, bool announce)
{
    auto ev = std::make_unique<ScriptedEvaluator>();
    QString error;
    if (!ev->loadFile(scriptedEvalScript(), &error)) {
        err() << "kwb " << command << ": $KWB_SCRIPTED_EVAL: " << error << "\n";
        return nullptr;
    }
    if (announce) {
        out() << "evaluations SCRIPTED by " << ev->scriptName()
              << " ($KWB_SCRIPTED_EVAL, for tests and demos): no candidate is run or measured\n";
        out().flush();
    }
    return ev;
}

} // namespace kwb::cli
