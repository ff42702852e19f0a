// SPDX-License-Identifier: MIT
#include "pipeline/pipeline.h"

#include "env/locations.h"
#include "eval/evaluator.h"
#include "llm/llmprovider.h"
#include "llm/replayprovider.h"
#include "llm/tokens.h"
#include "pipeline/decider.h"
#include "pipeline/stagepolicy.h"
#include "prompts/extraction.h"
#include "prompts/promptlibrary.h"
#include "store/runstore.h"

#include <QCryptographicHash>
#include <QDir>
#include <QEventLoop>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTimer>

#include <cmath>

namespace kwb::pipeline {

/// One generation step: the call type it is recorded under (also the candidate's label), the kind
/// of candidate it makes, the candidate it builds on, and the prompt.
struct Pipeline::Step {
    QString label;
    CandidateKind kind = CandidateKind::Seed;
    QString parentId;
    QString templ; ///< prompt template name
    QHash<QString, QString> vars;
    QString note;
};

QJsonObject PipelineConfig::toSettings() const
{
    QJsonArray points;
    for (auto p : {GatePoint::BeforeLlm, GatePoint::AfterGeneration, GatePoint::AfterEvaluation})
        if (gatePoints.contains(p))
            points.append(toName(p));
    return {{"seeds", seeds},
            {"max_repairs", maxRepairs},
            {"score_threshold", scoreThreshold},
            {"stages", stages},
            {"detectors", runDetectors},
            {"profile", profile},
            {"gate_policy", toName(gatePolicy)},
            {"gate_points", points},
            {"device", eval.device},
            {"trials", eval.trials},
            {"warmup", eval.warmup},
            {"repeat", eval.repeat},
            {"atol", eval.atol},
            {"rtol", eval.rtol},
            {"backend", backend},
            {"cassette", cassette}};
}

Pipeline::Pipeline(PipelineConfig config, llm::LlmProvider *provider, EvalBackend *evaluator, QObject *parent)
    : QObject(parent), m_config(std::move(config)), m_provider(provider), m_evaluator(evaluator)
{
    if (m_evaluator) // where a job runs (a cluster job id) goes into this run's log
        connect(m_evaluator, &EvalBackend::jobNote, this, [this](const QString &job, const QString &line) {
            if (m_evalJobs.contains(job))
                log(line);
        });
    qRegisterMetaType<GateRequest>();
    qRegisterMetaType<GateDecision>();
    qRegisterMetaType<kwb::Candidate>();
    qRegisterMetaType<kwb::LlmExchange>();
    qRegisterMetaType<kwb::RunState>();
    m_detect = defaultDetectorHook();
}

Pipeline::~Pipeline()
{
    abort();
}

QString Pipeline::runDirectory() const
{
    return m_writer ? m_writer->directory() : QString();
}

const Run &Pipeline::run() const
{
    return m_writer ? m_writer->run() : m_emptyRun;
}

void Pipeline::log(const QString &line)
{
    if (m_writer)
        m_writer->appendLog(line);
    emit logLine(line);
}

bool Pipeline::start(QString *error)
{
    auto fail = [error](const QString &m) {
        if (error)
            *error = m;
        return false;
    };
    if (!m_provider)
        return fail(QStringLiteral("no LLM provider"));
    if (!m_evaluator)
        return fail(QStringLiteral("no evaluator"));

    QString err;
    if (!m_config.resumeDir.isEmpty()) {
        m_writer = store::RunWriter::resume(m_config.resumeDir, &err);
        if (!m_writer)
            return fail(QStringLiteral("cannot resume %1: %2").arg(m_config.resumeDir, err));
        if (m_config.taskFile.isEmpty())
            m_config.taskFile = m_writer->run().info.taskFile;
    }

    QFile task(m_config.taskFile);
    if (!task.open(QIODevice::ReadOnly))
        return fail(QStringLiteral("cannot read the task %1: %2").arg(m_config.taskFile, task.errorString()));
    const QByteArray taskBytes = task.readAll();
    m_taskSource = QString::fromUtf8(taskBytes);
    m_taskName = QFileInfo(m_config.taskFile).completeBaseName();
    if (!m_taskSource.contains(QLatin1String("class Model")))
        return fail(QStringLiteral("%1 is not a KernelBench task: no `class Model`").arg(m_config.taskFile));

    m_prompts = std::make_unique<prompts::PromptLibrary>(m_config.promptsDir, m_config.userPromptsDir);
    for (const char *t : {"seed", "repair", "analysis", "optimize"})
        if (!m_prompts->hasTemplate(QString::fromLatin1(t)))
            return fail(QStringLiteral("prompt template '%1' not found in %2").arg(QLatin1String(t),
                                                                                  m_prompts->builtinDir()));

    if (!m_writer) {
        RunInfo info;
        info.taskName = m_taskName;
        info.taskFile = QFileInfo(m_config.taskFile).absoluteFilePath();
        info.taskHash = QString::fromLatin1(QCryptographicHash::hash(taskBytes, QCryptographicHash::Sha256).toHex());
        info.provider = m_provider->config().name;
        info.model = m_provider->config().model;
        info.settings = m_config.toSettings();
        info.state = RunState::Running;
        const QString runsDir = env::runsDir(m_config.runsDir);
        m_writer = store::RunWriter::create(runsDir, info, &err);
        if (!m_writer)
            return fail(QStringLiteral("cannot create a run under %1: %2").arg(runsDir, err));
        QString snapErr;
        if (!m_prompts->snapshotTo(m_writer->directory() + QStringLiteral("/prompts"), &snapErr))
            log(QStringLiteral("warning: prompts not snapshotted: %1").arg(snapErr));
        log(QStringLiteral("run %1: task %2, provider %3 (%4)")
                .arg(m_writer->directory(), m_taskName, info.provider, info.model));
    } else {
        RunInfo info = m_writer->run().info;
        info.state = RunState::Running;
        m_writer->updateInfo(info);
        log(QStringLiteral("resuming %1 (%2 candidates, %3 exchanges recorded)")
                .arg(m_writer->directory())
                .arg(m_writer->run().candidates.size())
                .arg(m_writer->run().exchanges.size()));
        for (const auto &w : m_writer->warnings())
            log(QStringLiteral("warning: %1").arg(w));
    }
    m_state = RunState::Running;
    emit stateChanged(m_state);
    QTimer::singleShot(0, this, [this] { runBaseline(); });
    return true;
}

RunState Pipeline::runBlocking(QString *error)
{
    QEventLoop loop;
    connect(this, &Pipeline::finished, &loop, &QEventLoop::quit);
    if (!start(error))
        return RunState::Failed;
    if (m_state == RunState::Running || m_state == RunState::Waiting)
        loop.exec();
    return m_state;
}

void Pipeline::stop()
{
    m_stopRequested = true;
    if (m_openGate)
        submitDecision(GateDecision::make(GateAction::Stop, {}, QStringLiteral("stop requested")));
}

void Pipeline::abort()
{
    if (m_halted)
        return;
    m_halted = true;
    if (m_call && !m_call->isFinished())
        m_call->cancel();
    if (m_evaluator)
        for (auto it = m_evalJobs.cbegin(); it != m_evalJobs.cend(); ++it)
            m_evaluator->cancel(it.key());
    m_evalJobs.clear();
    m_openGate.reset();
    m_gateDone = nullptr;
}

void Pipeline::finishRun(RunState state, const QString &note)
{
    if (m_halted)
        return;
    m_halted = true;
    m_state = state;
    if (m_writer) {
        RunInfo info = m_writer->run().info;
        info.state = state;
        info.bestCandidateId = selectBest();
        if (!note.isEmpty())
            info.note = note;
        m_writer->updateInfo(info);
        const Candidate *best = m_writer->run().candidate(info.bestCandidateId);
        if (best)
            log(QStringLiteral("best: %1 (%2) %3 ms, %4x vs eager")
                    .arg(best->id, best->label)
                    .arg(best->eval->candidate.medianMs, 0, 'f', 3)
                    .arg(score(*best), 0, 'f', 2));
        else
            log(QStringLiteral("no correct candidate"));
        log(QStringLiteral("run %1: %2").arg(toName(state), note));
        m_writer->writeSnapshot();
    }
    emit stateChanged(state);
    emit finished(state);
}

// ---------------------------------------------------------------------------------------------
// Phases

void Pipeline::runBaseline()
{
    if (halted())
        return;
    if (const Candidate *b = byLabel(QStringLiteral("baseline")); b && b->eval) {
        m_gpuName = m_config.gpuName.isEmpty() ? b->eval->device : m_config.gpuName;
        runSeed(0);
        return;
    }
    log(QStringLiteral("baseline: timing the reference"));
    EvalRequest req = m_config.eval;
    req.taskFile = m_config.taskFile;
    const QString job = m_evaluator->baseline(req);
    m_evalJobs.insert(job, {});
    connect(m_evaluator, &EvalBackend::evaluationFinished, this, [this, job](const QString &id, const EvalResult &r) {
        if (id != job || halted() || !m_evalJobs.contains(job))
            return;
        m_evalJobs.remove(job);
        Candidate c;
        c.kind = CandidateKind::Baseline;
        c.label = QStringLiteral("baseline");
        c.note = QStringLiteral("the PyTorch reference");
        addCandidate(c, m_taskSource);
        c.eval = r;
        c.status = CandidateStatus::Evaluated;
        updateCandidate(c);
        m_gpuName = m_config.gpuName.isEmpty() ? r.device : m_config.gpuName;
        log(QStringLiteral("baseline: eager %1 ms, graph %2 ms on %3 (%4)")
                .arg(r.eager.medianMs, 0, 'f', 3)
                .arg(r.graph.medianMs, 0, 'f', 3)
                .arg(r.device, toName(r.status)));
        runSeed(0);
    });
}

void Pipeline::runSeed(int index)
{
    if (halted())
        return;
    if (m_stopRequested)
        return finishRun(RunState::Stopped, QStringLiteral("stopped before seed %1").arg(index + 1));
    if (index >= m_config.seeds) {
        runAnalysis(0);
        return;
    }
    Step s;
    s.label = QStringLiteral("seed%1").arg(index + 1);
    s.kind = CandidateKind::Seed;
    s.templ = QStringLiteral("seed");
    s.vars = commonVars();
    s.vars.insert(QStringLiteral("seed_index"), QString::number(index + 1));
    s.note = QStringLiteral("seed %1 of %2").arg(index + 1).arg(m_config.seeds);
    generate(s, [this, index, label = s.label](const QString &id) {
        auto next = [this, index](const QString &finalId) {
            while (m_seedFinals.size() <= index)
                m_seedFinals.append(QString());
            m_seedFinals[index] = finalId;
            runSeed(index + 1);
        };
        if (id.isEmpty())
            next({});
        else
            repairChain(id, label, 1, next);
    });
}

void Pipeline::runAnalysis(int index)
{
    if (halted())
        return;
    if (m_stopRequested)
        return finishRun(RunState::Stopped, QStringLiteral("stopped before the algorithm analysis"));
    if (index >= m_seedFinals.size()) {
        selectAndDetect();
        return;
    }
    const QString seedId = m_seedFinals.value(index);
    const Candidate *seed = run().candidate(seedId);
    const QString seedLabel = QStringLiteral("seed%1").arg(index + 1);
    if (!seed) {
        log(QStringLiteral("%1: nothing to analyse (the seed was skipped)").arg(seedLabel));
        return runAnalysis(index + 1);
    }
    const bool noGpu = seed->eval && seed->eval->status == EvalStatus::NoGpu;
    const double sc = score(*seed);
    if (!noGpu && !seed->isCorrect()) {
        log(QStringLiteral("%1: no correct version after %2 repairs; not analysed").arg(seedLabel).arg(m_config.maxRepairs));
        return runAnalysis(index + 1);
    }
    if (!noGpu && std::isfinite(sc) && sc >= m_config.scoreThreshold) {
        log(QStringLiteral("%1: score %2 >= %3, no algorithm analysis").arg(seedLabel).arg(sc, 0, 'f', 2).arg(m_config.scoreThreshold));
        return runAnalysis(index + 1);
    }

    const QString analysisType = QStringLiteral("algorithm_analysis_%1").arg(seedLabel);
    auto optimize = [this, index, seedId, seedLabel](const prompts::Analysis &a) {
        if (!a.worthOptimizing) {
            log(QStringLiteral("%1: the analysis says not worth optimizing: %2").arg(seedLabel, a.reason));
            return runAnalysis(index + 1);
        }
        const Candidate *seed = run().candidate(seedId);
        Step s;
        s.label = QStringLiteral("algorithm_optimized_%1").arg(seedLabel);
        s.kind = CandidateKind::AlgoOpt;
        s.parentId = seedId;
        s.templ = QStringLiteral("optimize");
        s.vars = commonVars();
        s.vars.insert(candidateVars(*seed));
        s.vars.insert(QStringLiteral("analysis"), prompts::formatAnalysis(a));
        s.vars.insert(QStringLiteral("analysis_json"),
                      QString::fromUtf8(QJsonDocument(a.raw).toJson(QJsonDocument::Indented)));
        // The seeds' 40_GRUHidden lesson: the generation must know what the task returns.
        s.vars.insert(QStringLiteral("output_requirement"),
                      a.outputRequirement.isEmpty()
                          ? QStringLiteral("as the reference's forward() returns (read its return statement)")
                          : a.outputRequirement);
        s.note = QStringLiteral("from the algorithm analysis of %1 (%2)").arg(seedLabel, a.bottleneck);
        auto go = [this, index, s] {
            generate(s, [this, index, label = s.label](const QString &id) {
                if (id.isEmpty())
                    return runAnalysis(index + 1);
                repairChain(id, label, 1, [this, index](const QString &finalId) {
                    // The rewrite's profile next to the analysed one: the before/after of the analysis.
                    const Candidate *fin = run().candidate(finalId);
                    if (fin && fin->isCorrect())
                        return ensureProfile(finalId, [this, index] { runAnalysis(index + 1); });
                    runAnalysis(index + 1);
                });
            });
        };
        if (!templateWantsProfile(s.templ))
            return go();
        ensureProfile(seedId, [this, seedId, s, go]() mutable {
            // The profile arrived after the variables were filled: fill them again.
            if (const Candidate *seed = run().candidate(seedId))
                s.vars.insert(candidateVars(*seed));
            go();
        });
    };

    // Resume: an analysis answered before is not asked again.
    for (const auto &x : run().exchanges)
        if (x.callType == analysisType && x.error.isEmpty() && !x.response.isEmpty())
            if (auto a = prompts::extractAnalysis(x.response))
                return optimize(*a);

    if (replayHasNoAnswer(analysisType)) {
        log(QStringLiteral("%1: the cassette holds no answer for this call; step skipped").arg(analysisType));
        return runAnalysis(index + 1);
    }
    log(QStringLiteral("%1: score %2 below %3: algorithm analysis")
            .arg(seedLabel, std::isfinite(sc) ? QString::number(sc, 'f', 2) : QStringLiteral("unknown"))
            .arg(m_config.scoreThreshold));
    if (templateWantsProfile(QStringLiteral("analysis")))
        ensureProfile(seedId, [this, index, seedId, seedLabel, analysisType, optimize] {
            askAnalysis(index, seedId, seedLabel, analysisType, optimize);
        });
    else
        askAnalysis(index, seedId, seedLabel, analysisType, optimize);
}

void Pipeline::askAnalysis(int index, const QString &seedId, const QString &seedLabel, const QString &analysisType,
                           const std::function<void(const prompts::Analysis &)> &optimize)
{
    if (halted())
        return;
    const Candidate *seed = run().candidate(seedId);
    Step s;
    s.label = analysisType;
    s.kind = CandidateKind::AlgoOpt;
    s.parentId = seedId;
    s.templ = QStringLiteral("analysis");
    s.vars = commonVars();
    s.vars.insert(candidateVars(*seed));
    bool ok = true;
    QList<ChatMessage> msgs;
    const QString text = render(s.templ, s.vars, &ok);
    if (!ok)
        return finishRun(RunState::Failed, text);
    msgs = m_prompts->renderMessages(s.templ, s.vars);
    sendLlm(s, msgs, [this, index, optimize, seedLabel](const LlmExchange &x) {
        if (!x.error.isEmpty()) {
            log(QStringLiteral("%1: analysis call failed: %2").arg(seedLabel, x.error));
            return runAnalysis(index + 1);
        }
        QString err;
        const auto a = prompts::extractAnalysis(x.response, &err);
        if (!a) {
            log(QStringLiteral("%1: no usable analysis in the answer: %2").arg(seedLabel, err));
            return runAnalysis(index + 1);
        }
        log(QStringLiteral("%1: analysis: worth=%2, complexity=%3, output=%4, bottleneck: %5")
                .arg(seedLabel, a->worthOptimizing ? QStringLiteral("yes") : QStringLiteral("no"),
                     a->implementationComplexity, a->outputRequirement, a->bottleneck));
        optimize(*a);
    });
}

void Pipeline::selectAndDetect()
{
    if (halted())
        return;
    if (m_stopRequested)
        return finishRun(RunState::Stopped, QStringLiteral("stopped before the detectors"));
    const QString bestId = m_baseOverride.isEmpty() ? selectBest() : m_baseOverride;
    const Candidate *best = run().candidate(bestId);
    if (!best) {
        log(QStringLiteral("no correct candidate to tune: stages skipped"));
        return finishRun(RunState::Finished, QStringLiteral("no correct candidate"));
    }
    log(QStringLiteral("best so far: %1 (%2), %3x vs eager").arg(best->id, best->label).arg(score(*best), 0, 'f', 2));

    auto plan = [this, bestId](const QList<Verdict> &verdicts) {
        if (halted())
            return;
        const StagePlan p = planStagesFor(verdicts);
        m_stagePlan.clear();
        if (m_config.stages) {
            if (p.grid)
                m_stagePlan << QStringLiteral("grid");
            if (p.block)
                m_stagePlan << QStringLiteral("block");
            if (p.memory)
                m_stagePlan << QStringLiteral("memory");
        }
        m_stageNotes = p.promptNotes;
        for (const auto &v : verdicts)
            if (v.outcome == Outcome::Yes)
                m_stageNotes << QStringLiteral("%1: %2%3").arg(v.detector, v.summary,
                                                               v.suggestedFix.isEmpty() ? QString()
                                                                                        : QStringLiteral(" Fix: ") + v.suggestedFix);
        log(QStringLiteral("policy: %1 -> stages [%2]%3")
                .arg(p.rule.isEmpty() ? QStringLiteral("default") : p.rule, m_stagePlan.join(QLatin1String(", ")),
                     p.explanation.isEmpty() ? QString() : QStringLiteral(": ") + p.explanation));
        Q_UNUSED(bestId);
        runStages(0);
    };

    // Resume: detectors that already judged the best are not run again.
    if (!best->verdicts.isEmpty() || !m_config.runDetectors || !m_detect) {
        plan(best->verdicts);
        return;
    }
    const QString file = QDir(runDirectory()).absoluteFilePath(best->codeFile);
    log(QStringLiteral("detectors: %1").arg(best->id));
    m_detect(m_config.taskFile, file, [this, bestId, plan](const QList<Verdict> &verdicts, const QString &error) {
        if (halted())
            return;
        if (!error.isEmpty())
            log(QStringLiteral("detectors failed: %1 (going on without verdicts)").arg(error));
        Candidate c = *run().candidate(bestId);
        c.verdicts = verdicts;
        if (verdicts.isEmpty())
            c.verdicts.append(Verdict{QStringLiteral("pipeline.detectors_ran"), Outcome::No, Severity::Info,
                                      error.isEmpty() ? QStringLiteral("no detector found anything")
                                                      : QStringLiteral("detectors failed: ") + error,
                                      {}, {}});
        updateCandidate(c);
        if (c.hasIntegrityViolation() && c.overrideReason.isEmpty()) {
            log(QStringLiteral("%1 breaks integrity: not eligible as best").arg(c.id));
            GateRequest g;
            g.point = GatePoint::AfterEvaluation;
            g.gate = QStringLiteral("integrity:%1").arg(c.id);
            g.step = c.label;
            g.candidateId = c.id;
            g.code = code(c);
            g.eval = c.eval;
            g.failed = true;
            g.summary = QStringLiteral("%1 has an integrity violation; override with a reason to keep it as best").arg(c.id);
            g.allowed = {GateAction::Approve, GateAction::Override, GateAction::Stop};
            openGate(g, [this, bestId](const GateDecision &d) {
                if (d.action == GateAction::Override) {
                    Candidate c = *run().candidate(bestId);
                    c.overrideReason = d.text.isEmpty() ? d.reason : d.text;
                    updateCandidate(c);
                }
                selectAndDetect(); // another best, or the overridden one (its verdicts are kept)
            });
            return;
        }
        plan(c.verdicts);
    });
}

void Pipeline::runStages(int index)
{
    if (halted())
        return;
    if (m_stopRequested)
        return finishRun(RunState::Stopped, QStringLiteral("stopped before a stage"));
    if (index >= m_stagePlan.size())
        return finishRun(RunState::Finished, QStringLiteral("finished"));
    const QString stage = m_stagePlan.at(index);
    const QString baseId = m_baseOverride.isEmpty() ? selectBest() : m_baseOverride;
    m_baseOverride.clear();
    const Candidate *base = run().candidate(baseId);
    if (!base)
        return finishRun(RunState::Finished, QStringLiteral("no base for the stages"));
    Step s;
    s.label = QStringLiteral("stage_%1").arg(stage);
    s.kind = stage == QLatin1String("grid") ? CandidateKind::StageGrid
             : stage == QLatin1String("block") ? CandidateKind::StageBlock
                                               : CandidateKind::StageMemory;
    s.parentId = baseId;
    s.templ = QStringLiteral("stage_%1").arg(stage);
    s.vars = commonVars();
    s.vars.insert(candidateVars(*base));
    s.vars.insert(QStringLiteral("detector_notes"),
                  m_stageNotes.isEmpty() ? QStringLiteral("(no detector findings)") : QStringLiteral("- ") + m_stageNotes.join(QStringLiteral("\n- ")));
    s.note = QStringLiteral("stage %1 on %2").arg(stage, baseId);
    if (!m_prompts->hasTemplate(s.templ)) {
        log(QStringLiteral("%1: no template, skipped").arg(s.label));
        return runStages(index + 1);
    }
    const double baseMs = base->eval ? base->eval->candidate.medianMs : NAN;
    generate(s, [this, index, baseId, baseMs, label = s.label](const QString &id) {
        if (id.isEmpty())
            return runStages(index + 1);
        repairChain(id, label, 1, [this, index, baseId, baseMs, label](const QString &finalId) {
            const Candidate *c = run().candidate(finalId);
            if (c && c->isCorrect() && c->status != CandidateStatus::Rejected) {
                const double ms = c->eval->candidate.medianMs;
                if (!(ms < baseMs)) {
                    // Kept in the tree for the record; never selected (the seeds' stages lost 1.37x -> 0.09x).
                    Candidate r = *c;
                    r.status = CandidateStatus::Rejected;
                    r.note = QStringLiteral("regressed: %1 ms vs %2 ms of %3; kept in the tree, not selected")
                                 .arg(ms, 0, 'f', 3)
                                 .arg(baseMs, 0, 'f', 3)
                                 .arg(baseId);
                    updateCandidate(r);
                    log(QStringLiteral("%1: %2").arg(label, r.note));
                } else {
                    log(QStringLiteral("%1: improved %2 ms -> %3 ms").arg(label).arg(baseMs, 0, 'f', 3).arg(ms, 0, 'f', 3));
                }
            } else if (c) {
                log(QStringLiteral("%1: no correct version; the best stays %2").arg(label, selectBest()));
            }
            runStages(index + 1);
        });
    });
}

// ---------------------------------------------------------------------------------------------
// Steps

void Pipeline::generate(const Step &step, IdDone done)
{
    if (halted())
        return;
    // Resume: a step already in the tree is not generated again; what a gate made of it counts.
    if (const Candidate *existing = byLabel(step.label)) {
        const QString id = effective(existing->id);
        const Candidate *c = run().candidate(id);
        if (c->status == CandidateStatus::Rejected && id == existing->id && !c->eval) {
            done({}); // skipped at a gate
            return;
        }
        if (!c->eval && c->status != CandidateStatus::Rejected) {
            log(QStringLiteral("%1: resuming at its evaluation (%2)").arg(step.label, id));
            evaluateThenGate(id, done);
            return;
        }
        done(id);
        return;
    }
    if (replayHasNoAnswer(step.label)) {
        log(QStringLiteral("%1: the cassette holds no answer for this call; step skipped").arg(step.label));
        done({});
        return;
    }
    bool ok = true;
    const QString err = render(step.templ, step.vars, &ok);
    if (!ok) {
        finishRun(RunState::Failed, err);
        return;
    }
    QList<ChatMessage> msgs = m_prompts->renderMessages(step.templ, step.vars);
    sendLlm(step, msgs, [this, step, done](const LlmExchange &x) { recordAnswer(step, x, done); });
}

void Pipeline::sendLlm(const Step &step, QList<ChatMessage> messages, std::function<void(const LlmExchange &)> done)
{
    auto send = [this, step, done](QList<ChatMessage> msgs) {
        if (halted())
            return;
        llm::ChatRequest req;
        req.callType = step.label;
        req.messages = msgs;
        req.exchangeId = m_writer->nextExchangeId();
        LlmExchange started;
        started.id = req.exchangeId;
        started.callType = step.label;
        started.provider = m_provider->config().name;
        started.model = m_provider->config().model;
        started.messages = msgs;
        started.startedAt = QDateTime::currentDateTimeUtc();
        m_writer->addExchange(started);
        emit exchangeStarted(started);
        log(QStringLiteral("llm %1: %2 (%3)").arg(started.id, step.label, started.model));
        llm::LlmCall *call = m_provider->send(req);
        m_call = call;
        const QString xid = req.exchangeId;
        connect(call, &llm::LlmCall::delta, this, [this, xid](const QString &t) { emit exchangeDelta(xid, t); });
        connect(call, &llm::LlmCall::retrying, this, [this, xid](int attempt, int delayMs, const QString &why) {
            log(QStringLiteral("llm %1: retry %2 in %3 ms: %4").arg(xid).arg(attempt).arg(delayMs).arg(why));
        });
        connect(call, &llm::LlmCall::finished, this, [this, xid, done](const LlmExchange &result) {
            if (halted())
                return;
            LlmExchange x = result;
            x.id = xid;
            if (x.promptHash.isEmpty())
                x.promptHash = llm::promptHash(x.messages);
            if (x.error.isEmpty() && x.inputTokens == 0 && x.outputTokens == 0) {
                // Replayed cassettes and some local servers give no usage: estimate, and say so.
                x.inputTokens = llm::estimateTokens(x.messages);
                x.outputTokens = llm::estimateTokens(x.response);
                x.tokensEstimated = true;
            }
            m_writer->updateExchange(x);
            emit exchangeFinished(x);
            if (!x.error.isEmpty())
                log(QStringLiteral("llm %1 failed: %2").arg(xid, x.error));
            else
                log(QStringLiteral("llm %1: %2 in / %3 out tokens, %4 ms")
                        .arg(xid)
                        .arg(x.inputTokens)
                        .arg(x.outputTokens)
                        .arg(x.durationMs));
            // Leave the provider's signal handler before going on.
            QTimer::singleShot(0, this, [done, x] { done(x); });
        });
    };

    GateRequest g;
    g.point = GatePoint::BeforeLlm;
    g.gate = QStringLiteral("before_llm:%1").arg(step.label);
    g.step = step.label;
    g.baseId = step.parentId;
    g.messages = messages;
    g.summary = QStringLiteral("send %1 to %2 (%3 messages)").arg(step.label, m_provider->config().model).arg(messages.size());
    if (!gateOpens(m_config.gatePolicy, m_config.gatePoints, GatePoint::BeforeLlm, false)) {
        send(messages);
        return;
    }
    openGate(g, [this, step, messages, send, done](const GateDecision &d) {
        switch (d.action) {
        case GateAction::EditPrompt: {
            QList<ChatMessage> edited = messages;
            if (!edited.isEmpty() && edited.last().role == QLatin1String("user"))
                edited.last().content = d.text;
            else
                edited.append({QStringLiteral("user"), d.text});
            send(edited);
            return;
        }
        case GateAction::Skip: {
            LlmExchange x;
            x.callType = step.label;
            x.error = QStringLiteral("skipped at the gate");
            done(x);
            return;
        }
        case GateAction::UseAsBase:
            if (run().candidate(d.candidateId)) {
                // Takes effect from the next stage on; this prompt was built on the old base.
                m_baseOverride = d.candidateId;
                log(QStringLiteral("%1 is the base from the next step on").arg(d.candidateId));
            }
            send(messages);
            return;
        default:
            send(messages);
        }
    });
}

void Pipeline::recordAnswer(const Step &step, const LlmExchange &x, IdDone done)
{
    if (halted())
        return;
    if (!x.error.isEmpty()) {
        if (x.error == QLatin1String("skipped at the gate")) {
            log(QStringLiteral("%1: skipped").arg(step.label));
            done({});
            return;
        }
        // A failed call leaves nothing to evaluate; the step ends (the exchange is recorded).
        GateRequest g;
        g.point = GatePoint::AfterGeneration;
        g.gate = QStringLiteral("llm_failed:%1").arg(step.label);
        g.step = step.label;
        g.failed = true;
        g.summary = QStringLiteral("the LLM call failed: %1").arg(x.error);
        g.allowed = {GateAction::Approve, GateAction::Stop};
        if (!gateOpens(m_config.gatePolicy, m_config.gatePoints, GatePoint::AfterGeneration, true)) {
            done({});
            return;
        }
        openGate(g, [done](const GateDecision &) { done({}); });
        return;
    }
    const prompts::CodeExtraction ex = prompts::extractCode(x.response);
    Candidate c;
    c.kind = step.kind;
    c.parentId = step.parentId;
    c.label = step.label;
    c.exchangeIds = {x.id};
    c.note = step.note;
    addCandidate(c, ex.code);
    LlmExchange linked = x;
    linked.candidateId = c.id;
    m_writer->updateExchange(linked);
    if (ex.code.isEmpty()) {
        // Nothing runnable came back: recorded as a syntax error so the repair loop can ask again.
        EvalResult r;
        r.status = EvalStatus::SyntaxError;
        r.reason = QStringLiteral("the answer held no usable code: %1").arg(ex.error);
        c.eval = r;
        c.status = CandidateStatus::Evaluated;
        updateCandidate(c);
        log(QStringLiteral("%1 (%2): %3").arg(c.id, c.label, r.reason));
        afterEvaluationGate(c.id, done);
        return;
    }
    if (!gateOpens(m_config.gatePolicy, m_config.gatePoints, GatePoint::AfterGeneration, false)) {
        evaluateThenGate(c.id, done);
        return;
    }
    GateRequest g;
    g.point = GatePoint::AfterGeneration;
    g.gate = QStringLiteral("after_generation:%1").arg(c.id);
    g.step = step.label;
    g.candidateId = c.id;
    g.baseId = step.parentId;
    g.code = ex.code;
    g.summary = QStringLiteral("%1 generated %2; evaluate it?").arg(step.label, c.id);
    const QString cid = c.id;
    openGate(g, [this, cid, done](const GateDecision &d) {
        switch (d.action) {
        case GateAction::EditCode:
            manualEdit(cid, d.text, d.reason, done);
            return;
        case GateAction::Reprompt:
            reprompt(cid, d.text, done);
            return;
        case GateAction::Skip: {
            Candidate c = *run().candidate(cid);
            c.status = CandidateStatus::Rejected;
            c.note = QStringLiteral("skipped at the gate, not evaluated%1").arg(d.reason.isEmpty() ? QString() : QStringLiteral(": ") + d.reason);
            updateCandidate(c);
            done({});
            return;
        }
        default:
            evaluateThenGate(cid, done);
        }
    });
}

void Pipeline::evaluateThenGate(const QString &candidateId, IdDone done)
{
    evaluate(candidateId, [this, candidateId, done] { afterEvaluationGate(candidateId, done); });
}

void Pipeline::evaluate(const QString &candidateId, Done done)
{
    if (halted())
        return;
    Candidate c = *run().candidate(candidateId);
    EvalRequest req = m_config.eval;
    req.taskFile = m_config.taskFile;
    req.candidateFile = QDir(runDirectory()).absoluteFilePath(c.codeFile);
    c.status = CandidateStatus::Evaluating;
    updateCandidate(c);
    log(QStringLiteral("eval %1 (%2)").arg(c.id, c.label));
    runEvalJob(req, done, [this, candidateId](const EvalResult &r) {
        Candidate c = *run().candidate(candidateId);
        c.eval = r;
        c.status = CandidateStatus::Evaluated;
        updateCandidate(c);
        const double sc = score(c);
        log(QStringLiteral("eval %1 (%2): %3%4%5")
                .arg(c.id, c.label, toName(r.status))
                .arg(r.correct() ? QStringLiteral(", %1 ms").arg(r.candidate.medianMs, 0, 'f', 3) : QStringLiteral(": ") + r.reason)
                .arg(std::isfinite(sc) ? QStringLiteral(", %1x vs eager").arg(sc, 0, 'f', 2) : QString()));
    });
}

void Pipeline::runEvalJob(const EvalRequest &req, Done done, std::function<void(const EvalResult &)> handle)
{
    const QString job = m_evaluator->evaluate(req);
    m_evalJobs.insert(job, done);
    connect(m_evaluator, &EvalBackend::evaluationFinished, this,
            [this, job, handle = std::move(handle)](const QString &id, const EvalResult &r) {
                if (id != job || halted() || !m_evalJobs.contains(job))
                    return;
                const Done next = m_evalJobs.take(job);
                handle(r);
                QTimer::singleShot(0, this, next);
            });
}

bool Pipeline::templateWantsProfile(const QString &templ) const
{
    const QStringList names = m_prompts->placeholders(templ);
    return names.contains(QStringLiteral("profile_metrics")) || names.contains(QStringLiteral("profile"));
}

void Pipeline::ensureProfile(const QString &candidateId, Done done)
{
    if (halted())
        return;
    const Candidate *stored = run().candidate(candidateId);
    // Off: the prompt says so and nothing is stored, so that a resume with profiling on still profiles it.
    if (!stored || stored->profile || !m_config.profile)
        return done();
    Candidate c = *stored;
    KernelProfile p;
    p.at = QDateTime::currentDateTimeUtc();
    if (!c.eval || !c.eval->onGpu)
        p.note = QStringLiteral("not profiled: no GPU");
    else if (!c.isCorrect())
        p.note = QStringLiteral("not profiled: the candidate is not correct");
    if (!p.note.isEmpty()) {
        p.device = c.eval ? c.eval->device : QString();
        c.profile = p;
        updateCandidate(c);
        log(QStringLiteral("profile %1 (%2): %3").arg(c.id, c.label, p.note));
        return done();
    }
    // One correctness trial (the profile is taken only of a kernel that passes), one timed call, no
    // baselines: the job's time is the compile, that trial and Nsight Compute.
    EvalRequest req = m_config.eval;
    req.taskFile = m_config.taskFile;
    req.candidateFile = QDir(runDirectory()).absoluteFilePath(c.codeFile);
    req.profile = true;
    req.trials = 1;
    req.warmup = 1;
    req.repeat = 1;
    req.baselines = false;
    req.graphBaseline = false;
    req.integrity = false;
    req.runTimeoutSec = qMax(req.runTimeoutSec, 420); // above the worker's own profile limit (180 s)
    log(QStringLiteral("profile %1 (%2): Nsight Compute on %3").arg(c.id, c.label, c.eval->device));
    runEvalJob(req, done, [this, candidateId](const EvalResult &r) {
        Candidate c = *run().candidate(candidateId);
        KernelProfile p = KernelProfile::fromEval(r);
        p.at = QDateTime::currentDateTimeUtc();
        if (!p.measured() && !r.correct())
            p.note = QStringLiteral("not profiled: %1: %2").arg(toName(r.status), r.reason);
        if (!std::isfinite(p.seconds))
            p.seconds = r.wallSeconds;
        c.profile = p;
        updateCandidate(c);
        const Roofline roof = rooflineOf(p.metrics);
        log(QStringLiteral("profile %1 (%2): %3; %4 s to profile, %5 s the whole job")
                .arg(c.id, c.label,
                     p.measured() ? (roof.isValid() ? roof.position() : QStringLiteral("measured, no roofline")) : p.note)
                .arg(p.seconds, 0, 'f', 1)
                .arg(r.wallSeconds, 0, 'f', 1));
    });
}

void Pipeline::afterEvaluationGate(const QString &candidateId, IdDone done)
{
    if (halted())
        return;
    const Candidate c = *run().candidate(candidateId);
    const bool failed = !c.isCorrect() || (c.hasIntegrityViolation() && c.overrideReason.isEmpty());
    if (!gateOpens(m_config.gatePolicy, m_config.gatePoints, GatePoint::AfterEvaluation, failed)) {
        done(candidateId);
        return;
    }
    GateRequest g;
    g.point = GatePoint::AfterEvaluation;
    g.gate = QStringLiteral("after_eval:%1").arg(candidateId);
    g.step = c.label;
    g.candidateId = candidateId;
    g.baseId = c.parentId;
    g.code = code(c);
    g.eval = c.eval;
    g.failed = failed;
    g.summary = c.eval ? QStringLiteral("%1 (%2): %3 %4").arg(c.id, c.label, toName(c.eval->status), c.eval->reason)
                       : QStringLiteral("%1 (%2)").arg(c.id, c.label);
    openGate(g, [this, candidateId, done](const GateDecision &d) {
        switch (d.action) {
        case GateAction::EditCode:
            manualEdit(candidateId, d.text, d.reason, done);
            return;
        case GateAction::Reprompt:
            reprompt(candidateId, d.text, done);
            return;
        case GateAction::Override: {
            Candidate c = *run().candidate(candidateId);
            c.overrideReason = d.text.isEmpty() ? d.reason : d.text;
            updateCandidate(c);
            done(candidateId);
            return;
        }
        case GateAction::UseAsBase:
            if (run().candidate(d.candidateId))
                m_baseOverride = d.candidateId;
            done(candidateId);
            return;
        case GateAction::Skip: {
            // Skip what would follow (repairs): the chain ends here, as it is.
            Candidate c = *run().candidate(candidateId);
            c.note += QStringLiteral(" [rest of the step skipped at the gate]");
            updateCandidate(c);
            m_skipRepairs.insert(candidateId);
            done(candidateId);
            return;
        }
        default:
            done(candidateId);
        }
    });
}

void Pipeline::manualEdit(const QString &candidateId, const QString &newCode, const QString &reason, IdDone done)
{
    const Candidate orig = *run().candidate(candidateId);
    Candidate c;
    c.kind = CandidateKind::ManualEdit;
    c.parentId = candidateId;
    int n = 1;
    while (byLabel(QStringLiteral("%1_edit%2").arg(orig.label).arg(n)))
        ++n;
    c.label = QStringLiteral("%1_edit%2").arg(orig.label).arg(n);
    c.note = reason.isEmpty() ? QStringLiteral("code edited at the gate") : reason;
    addCandidate(c, newCode);
    if (!orig.eval) {
        Candidate o = orig;
        o.status = CandidateStatus::Rejected;
        o.note = QStringLiteral("replaced by the manual edit %1").arg(c.id);
        updateCandidate(o);
    }
    evaluateThenGate(c.id, done);
}

void Pipeline::reprompt(const QString &candidateId, const QString &followUp, IdDone done)
{
    const Candidate orig = *run().candidate(candidateId);
    // The same conversation: the prompt that made the candidate, its answer, then the follow-up.
    QList<ChatMessage> msgs;
    for (const auto &xid : orig.exchangeIds)
        if (const LlmExchange *x = run().exchange(xid)) {
            msgs = x->messages;
            msgs.append({QStringLiteral("assistant"), x->response});
        }
    if (msgs.isEmpty())
        msgs.append({QStringLiteral("user"), QStringLiteral("```python\n%1\n```").arg(code(orig))});
    msgs.append({QStringLiteral("user"), followUp});
    Step s;
    int n = 1;
    while (byLabel(QStringLiteral("%1_reprompt%2").arg(orig.label).arg(n)))
        ++n;
    s.label = QStringLiteral("%1_reprompt%2").arg(orig.label).arg(n);
    s.kind = CandidateKind::Reprompt;
    s.parentId = candidateId;
    s.note = QStringLiteral("re-prompted: %1").arg(followUp.left(200));
    if (!orig.eval) {
        Candidate o = orig;
        o.status = CandidateStatus::Rejected;
        o.note = QStringLiteral("re-prompted before evaluation");
        updateCandidate(o);
    }
    sendLlm(s, msgs, [this, s, done](const LlmExchange &x) { recordAnswer(s, x, done); });
}

void Pipeline::repairChain(const QString &candidateId, const QString &rootLabel, int attempt, IdDone done)
{
    if (halted())
        return;
    const QString id = effective(candidateId);
    const Candidate *c = run().candidate(id);
    if (!c || c->isCorrect() || !c->eval || m_skipRepairs.contains(id)) {
        done(id);
        return;
    }
    if (c->eval->status == EvalStatus::NoGpu || c->eval->status == EvalStatus::InternalError
        || c->eval->status == EvalStatus::HarnessOutOfMemory
        || c->eval->status == EvalStatus::Cancelled) {
        // Not the kernel's fault: a repair prompt would only confuse the model.
        log(QStringLiteral("%1: %2 is not something a repair can fix").arg(c->label, toName(c->eval->status)));
        done(id);
        return;
    }
    if (attempt > m_config.maxRepairs) {
        log(QStringLiteral("%1: still failing after %2 repairs").arg(rootLabel).arg(m_config.maxRepairs));
        done(id);
        return;
    }
    if (m_stopRequested) {
        done(id);
        return;
    }
    Step s;
    s.label = QStringLiteral("%1_repair%2").arg(rootLabel).arg(attempt);
    s.kind = CandidateKind::Repair;
    s.parentId = id;
    s.templ = QStringLiteral("repair");
    s.vars = commonVars();
    s.vars.insert(candidateVars(*c));
    s.vars.insert(QStringLiteral("error_history"), errorHistory(id));
    s.vars.insert(QStringLiteral("attempt"), QString::number(attempt));
    s.vars.insert(QStringLiteral("max_attempts"), QString::number(m_config.maxRepairs));
    s.note = QStringLiteral("repair %1 of %2 (%3)").arg(attempt).arg(c->label, toName(c->eval->status));
    generate(s, [this, id, rootLabel, attempt, done](const QString &rid) {
        if (rid.isEmpty()) {
            done(id);
            return;
        }
        repairChain(rid, rootLabel, attempt + 1, done);
    });
}

// ---------------------------------------------------------------------------------------------
// Gates

void Pipeline::openGate(GateRequest request, std::function<void(const GateDecision &)> done)
{
    if (halted())
        return;
    request.serial = ++m_gateSerial;
    if (request.allowed.isEmpty())
        request.allowed = allowedActions(request.point);
    m_openGate = request;
    m_gateDone = std::move(done);
    m_state = RunState::Waiting;
    emit stateChanged(m_state);
    log(QStringLiteral("gate %1: %2").arg(request.gate, request.summary));
    emit gateOpened(request);
    if (!m_openGate || m_openGate->serial != request.serial)
        return; // answered from a slot connected to gateOpened
    if (m_decider) {
        const int serial = request.serial;
        QPointer<Pipeline> self(this);
        m_decider->decide(request, [self, serial](const GateDecision &d) {
            // Answer from the event loop, never from inside decide() (no re-entrance).
            if (self)
                QTimer::singleShot(0, self, [self, d, serial] {
                    if (self)
                        self->submitDecision(d, serial);
                });
        });
    }
}

void Pipeline::submitDecision(const kwb::pipeline::GateDecision &decision, int serial)
{
    if (!m_openGate || (serial != 0 && serial != m_openGate->serial) || halted())
        return;
    const GateRequest request = *m_openGate;
    auto done = std::move(m_gateDone);
    m_openGate.reset();
    m_gateDone = nullptr;
    m_state = RunState::Running;
    emit stateChanged(m_state);
    recordGate(request, decision, decision.action == GateAction::UseAsBase ? decision.candidateId : request.candidateId);
    emit gateClosed(request, decision);
    if (decision.action == GateAction::Stop) {
        finishRun(RunState::Stopped, QStringLiteral("stopped at %1%2").arg(request.gate,
                                                                     decision.reason.isEmpty() ? QString() : QStringLiteral(": ") + decision.reason));
        return;
    }
    if (decision.action == GateAction::Override && request.candidateId.isEmpty())
        log(QStringLiteral("override ignored: no candidate at this gate"));
    if (done)
        done(decision);
}

void Pipeline::recordGate(const GateRequest &request, const GateDecision &decision, const QString &candidateId)
{
    GateRecord r;
    r.gate = request.gate;
    r.decision = toName(decision.action);
    r.reason = decision.reason;
    if (decision.action == GateAction::Override && r.reason.isEmpty())
        r.reason = decision.text;
    r.candidateId = candidateId;
    r.at = QDateTime::currentDateTimeUtc();
    m_writer->addGate(r);
    log(QStringLiteral("gate %1: %2%3").arg(request.gate, r.decision, r.reason.isEmpty() ? QString() : QStringLiteral(" (") + r.reason + QLatin1Char(')')));
}

// ---------------------------------------------------------------------------------------------
// Helpers

bool Pipeline::replayHasNoAnswer(const QString &callType) const
{
    if (!m_config.skipUnrecordedCalls)
        return false;
    const auto *replay = qobject_cast<const llm::ReplayProvider *>(m_provider.data());
    return replay && replay->remaining(callType) <= 0;
}

QString Pipeline::render(const QString &templ, const QHash<QString, QString> &vars, bool *ok)
{
    QHash<QString, QString> v = vars;
    QStringList names = m_prompts->placeholders(templ);
    if (m_prompts->hasTemplate(QStringLiteral("system")))
        names += m_prompts->placeholders(QStringLiteral("system"));
    for (const auto &n : names)
        if (!v.contains(n)) {
            // A template newer than this engine: say so, and go on with the value empty.
            log(QStringLiteral("warning: template %1 asks for {{%2}}, which the pipeline does not provide").arg(templ, n));
            v.insert(n, QString());
        }
    QString err;
    m_prompts->renderMessages(templ, v, &err);
    *ok = err.isEmpty();
    return err.isEmpty() ? QString() : QStringLiteral("prompt %1: %2").arg(templ, err);
}

QHash<QString, QString> Pipeline::commonVars() const
{
    QHash<QString, QString> v;
    v.insert(QStringLiteral("task_name"), m_taskName);
    v.insert(QStringLiteral("task_source"), m_taskSource);
    v.insert(QStringLiteral("reference"), m_taskSource);
    v.insert(QStringLiteral("gpu_name"), m_gpuName.isEmpty() ? QStringLiteral("unknown GPU") : m_gpuName);
    v.insert(QStringLiteral("gpu"), m_gpuName.isEmpty() ? QStringLiteral("unknown GPU") : m_gpuName);
    v.insert(QStringLiteral("backend"), m_config.backend);
    if (const Candidate *b = byLabel(QStringLiteral("baseline")); b && b->eval) {
        v.insert(QStringLiteral("eager_ms"), QString::number(b->eval->eager.medianMs, 'f', 4));
        v.insert(QStringLiteral("graph_ms"), b->eval->graph.isValid() ? QString::number(b->eval->graph.medianMs, 'f', 4)
                                                                       : QStringLiteral("n/a"));
    } else {
        v.insert(QStringLiteral("eager_ms"), QStringLiteral("n/a"));
        v.insert(QStringLiteral("graph_ms"), QStringLiteral("n/a"));
    }
    v.insert(QStringLiteral("baseline_ms"), v.value(QStringLiteral("eager_ms")));
    v.insert(QStringLiteral("eager_latency_ms"), v.value(QStringLiteral("eager_ms")));
    v.insert(QStringLiteral("graph_latency_ms"), v.value(QStringLiteral("graph_ms")));
    return v;
}

QHash<QString, QString> Pipeline::candidateVars(const Candidate &c) const
{
    QHash<QString, QString> v;
    v.insert(QStringLiteral("code"), code(c));
    v.insert(QStringLiteral("candidate_id"), c.id);
    v.insert(QStringLiteral("candidate_label"), c.label);
    if (c.eval) {
        const EvalResult &r = *c.eval;
        v.insert(QStringLiteral("status"), toName(r.status));
        v.insert(QStringLiteral("error_summary"), r.reason);
        QStringList tail = r.logTail.split(QLatin1Char('\n'));
        if (tail.size() > 40)
            tail = tail.mid(tail.size() - 40);
        v.insert(QStringLiteral("error_log"), QStringLiteral("%1: %2\n%3").arg(toName(r.status), r.reason, tail.join(QLatin1Char('\n'))).trimmed());
        v.insert(QStringLiteral("latency_ms"), r.candidate.isValid() ? QString::number(r.candidate.medianMs, 'f', 4) : QStringLiteral("n/a"));
        if (r.eager.isValid())
            v.insert(QStringLiteral("eager_ms"), QString::number(r.eager.medianMs, 'f', 4));
        if (r.graph.isValid())
            v.insert(QStringLiteral("graph_ms"), QString::number(r.graph.medianMs, 'f', 4));
        const double sc = r.speedupVsEager();
        v.insert(QStringLiteral("speedup"), std::isfinite(sc) ? QString::number(sc, 'f', 3) : QStringLiteral("n/a"));
        v.insert(QStringLiteral("max_abs_err"), std::isfinite(r.maxAbsErr) ? QString::number(r.maxAbsErr, 'g', 3) : QStringLiteral("n/a"));
        v.insert(QStringLiteral("profile"), profileText(c));
        v.insert(QStringLiteral("profile_metrics"), v.value(QStringLiteral("profile")));
        v.insert(QStringLiteral("current_latency_ms"), v.value(QStringLiteral("latency_ms")));
        v.insert(QStringLiteral("eager_latency_ms"), v.value(QStringLiteral("eager_ms")));
        v.insert(QStringLiteral("graph_latency_ms"), v.value(QStringLiteral("graph_ms")));
    } else {
        for (const char *k : {"status", "error_summary", "error_log", "latency_ms", "speedup", "max_abs_err", "profile",
                              "profile_metrics", "current_latency_ms"})
            v.insert(QString::fromLatin1(k), QStringLiteral("n/a"));
    }
    return v;
}

QString Pipeline::profileText(const Candidate &c) const
{
    if (const auto p = c.shownProfile())
        return profilePromptText(*p);
    if (!m_config.profile)
        return QStringLiteral("not profiled: profiling is off for this run");
    return c.eval && !c.eval->profileNote.isEmpty() ? c.eval->profileNote : QStringLiteral("not profiled");
}

QString Pipeline::errorHistory(const QString &candidateId) const
{
    // The chain up to the generated root, oldest first: what was tried before and how it failed
    // (the current failure is the prompt's error log).
    QStringList items;
    const Candidate *c = run().candidate(candidateId);
    while (c) {
        if (c->id != candidateId && c->eval && !c->eval->correct())
            items.prepend(QStringLiteral("- %1 (%2): %3: %4").arg(c->id, c->label, toName(c->eval->status), c->eval->reason));
        if (c->kind != CandidateKind::Repair && c->kind != CandidateKind::ManualEdit && c->kind != CandidateKind::Reprompt)
            break;
        c = run().candidate(c->parentId);
    }
    return items.join(QLatin1Char('\n'));
}

const Candidate *Pipeline::byLabel(const QString &label) const
{
    for (const auto &c : run().candidates)
        if (c.label == label)
            return &c;
    return nullptr;
}

QString Pipeline::effective(const QString &candidateId) const
{
    // A gate's manual edit or re-prompt stands in for the candidate it was made from.
    QString id = candidateId;
    for (;;) {
        QString next;
        for (const auto *ch : run().children(id))
            if (ch->kind == CandidateKind::ManualEdit || ch->kind == CandidateKind::Reprompt)
                next = ch->id;
        if (next.isEmpty())
            return id;
        id = next;
    }
}

QString Pipeline::selectBest() const
{
    const Candidate *best = nullptr;
    for (const auto &c : run().candidates) {
        if (c.kind == CandidateKind::Baseline || c.status == CandidateStatus::Rejected || !c.isEligibleForBest()
            || !c.eval->candidate.isValid())
            continue;
        if (!best || c.eval->candidate.medianMs < best->eval->candidate.medianMs)
            best = &c;
    }
    return best ? best->id : QString();
}

double Pipeline::score(const Candidate &c) const
{
    return c.eval && c.eval->correct() ? c.eval->speedupVsEager() : std::numeric_limits<double>::quiet_NaN();
}

QString Pipeline::code(const Candidate &c) const
{
    return store::readCode(runDirectory(), c);
}

void Pipeline::addCandidate(Candidate &c, const QString &code)
{
    c.id = m_writer->nextCandidateId();
    c.createdAt = QDateTime::currentDateTimeUtc();
    if (!m_writer->addCandidate(c, code))
        log(QStringLiteral("warning: the run store failed: %1").arg(m_writer->lastError()));
    if (const Candidate *stored = m_writer->run().candidate(c.id))
        c = *stored;
    emit candidateAdded(c);
}

void Pipeline::updateCandidate(const Candidate &c)
{
    if (!m_writer->updateCandidate(c))
        log(QStringLiteral("warning: the run store failed: %1").arg(m_writer->lastError()));
    emit candidateUpdated(c);
}

} // namespace kwb::pipeline
