// SPDX-License-Identifier: MIT
#pragma once

#include "eval/evalrequest.h"
#include "model/run.h"
#include "pipeline/gate.h"

#include <QHash>
#include <QJsonObject>
#include <QObject>
#include <QPointer>
#include <QSet>
#include <QString>

#include <functional>
#include <memory>
#include <optional>

namespace kwb {
class EvalBackend;
namespace llm {
class LlmProvider;
class LlmCall;
}
namespace prompts {
class PromptLibrary;
struct Analysis;
}
namespace store {
class RunWriter;
}
} // namespace kwb

namespace kwb::pipeline {

class Decider;

/// What a pipeline run is asked to do. Everything here is recorded in RunInfo::settings.
struct PipelineConfig {
    QString taskFile; ///< the KernelBench task (.py)
    int seeds = 2; ///< independent seed generations
    int maxRepairs = 3; ///< repairs per generated candidate (seeds, algo-opt, stages)
    double scoreThreshold = 1.0; ///< seeds scoring below this (speedup vs eager) get an algorithm analysis
    bool stages = true; ///< run the grid / block / memory stages (the policy may still skip them)
    bool runDetectors = true;
    /// Profile under Nsight Compute the candidate an algorithm analysis reads and the correct rewrite it
    /// leads to (once each; stored with the candidate).
    bool profile = true;
    GatePolicy gatePolicy = GatePolicy::None;
    QSet<GatePoint> gatePoints{GatePoint::BeforeLlm, GatePoint::AfterGeneration, GatePoint::AfterEvaluation};
    EvalRequest eval; ///< device, trials, tolerances, limits; taskFile/candidateFile are filled per call
    QString runsDir; ///< where a new run directory is made (empty: env::runsDir())
    QString resumeDir; ///< continue this run instead of starting a new one
    QString gpuName; ///< for the prompts; empty: the device the baseline ran on
    QString backend = QStringLiteral("triton"); ///< "triton" or "cuda"
    QString promptsDir; ///< empty: env::promptsDir()
    QString userPromptsDir; ///< override folder (empty: the library's default)
    /// Replay: when the provider is a replay provider with no answer left for a call type, skip the
    /// step (log it) instead of failing: a recording made on another machine may have taken a
    /// slightly different path (other scores, other failures).
    bool skipUnrecordedCalls = true;
    QString cassette; ///< the cassette a replay provider reads (recorded in the settings, for resume)

    QJsonObject toSettings() const;
};

/// Static verdicts for a candidate file; `done` gets them (or an error) later from the event loop.
using DetectorHook = std::function<void(const QString &taskFile, const QString &candidateFile,
                                        std::function<void(const QList<Verdict> &, const QString &error)> done)>;

/// The optimization loop of docs/pipeline.md with the seeds' fixes and gates:
/// baseline (cached) -> N seeds -> evaluate -> repair <= maxRepairs -> algorithm analysis of every seed
/// below the score threshold -> optimize-from-analysis (always with the PyTorch reference and the output
/// requirement) -> evaluate -> repair -> select the best -> detectors -> stage plan -> grid, block, memory
/// stages on the best unless skipped -> final.
///
/// Asynchronous: start() returns at once; signals report every step; nothing blocks the thread.
/// Every step is written through the RunWriter as it happens, so an interrupted run resumes where it
/// stopped: each step has a stable label ("seed1", "seed1_repair2", "algorithm_optimized_seed1",
/// "stage_grid" ...) and a resumed pipeline walks the same steps, reusing what the tree already holds.
/// The best candidate so far is never lost: a stage that regresses stays in the tree, marked rejected.
class Pipeline : public QObject
{
    Q_OBJECT
public:
    /// `provider` and `evaluator` are not owned and must outlive the pipeline.
    Pipeline(PipelineConfig config, llm::LlmProvider *provider, EvalBackend *evaluator, QObject *parent = nullptr);
    ~Pipeline() override;

    /// Answers gates; not owned. Without one, gateOpened() waits for submitDecision().
    void setDecider(Decider *decider) { m_decider = decider; }
    /// Replaces the DetectorRunner (tests, or a front-end without Python).
    void setDetectorHook(DetectorHook hook) { m_detect = std::move(hook); }

    /// Creates (or resumes) the run directory and starts the loop. False with `error` when the task,
    /// the prompts or the run directory cannot be used; the loop has not started then.
    bool start(QString *error = nullptr);
    /// CLI, tests and Python: start() and spin a local event loop until finished.
    RunState runBlocking(QString *error = nullptr);

    RunState state() const { return m_state; }
    QString runDirectory() const;
    /// The run as recorded so far (empty before start()).
    const Run &run() const;
    /// The open gate, if the pipeline waits for one.
    std::optional<GateRequest> openGate() const { return m_openGate; }
    const PipelineConfig &config() const { return m_config; }

public Q_SLOTS:
    /// Answers the open gate (ignored when none is open or `serial` names another gate; 0 = the open one).
    void submitDecision(const kwb::pipeline::GateDecision &decision, int serial = 0);
    /// Stops after the current step; the run is recorded as stopped and can be resumed.
    void stop();
    /// Cancels what is in flight now and ends without recording a final state (as a crash would):
    /// used to test resume, and by front-ends that are shutting down.
    void abort();

Q_SIGNALS:
    void candidateAdded(const kwb::Candidate &candidate);
    void candidateUpdated(const kwb::Candidate &candidate);
    void exchangeStarted(const kwb::LlmExchange &exchange);
    void exchangeDelta(const QString &exchangeId, const QString &text);
    void exchangeFinished(const kwb::LlmExchange &exchange);
    void gateOpened(const kwb::pipeline::GateRequest &request);
    void gateClosed(const kwb::pipeline::GateRequest &request, const kwb::pipeline::GateDecision &decision);
    void logLine(const QString &line);
    void stateChanged(kwb::RunState state);
    void finished(kwb::RunState state);

private:
    using Done = std::function<void()>;
    using IdDone = std::function<void(const QString &candidateId)>;
    struct Step; // one generation step (a call type, its kind and parent)

    // The loop, one function per phase, each continuing into the next.
    void runBaseline();
    void runSeed(int index);
    void runAnalysis(int index);
    void askAnalysis(int index, const QString &seedId, const QString &seedLabel, const QString &analysisType,
                     const std::function<void(const prompts::Analysis &)> &optimize);
    void selectAndDetect();
    void runStages(int index);
    void finishRun(RunState state, const QString &note = {});

    // Building blocks.
    void generate(const Step &step, IdDone done);
    void sendLlm(const Step &step, QList<ChatMessage> messages, std::function<void(const LlmExchange &)> done);
    void recordAnswer(const Step &step, const LlmExchange &x, IdDone done);
    void evaluateThenGate(const QString &candidateId, IdDone done);
    void evaluate(const QString &candidateId, Done done);
    /// Queues an evaluation; `handle` gets its result (not after a halt), then `done` runs from the event loop.
    void runEvalJob(const EvalRequest &req, Done done, std::function<void(const EvalResult &)> handle);
    /// Gives the candidate its stored profile (or the one-line reason there is none), then `done`.
    void ensureProfile(const QString &candidateId, Done done);
    bool templateWantsProfile(const QString &templ) const;
    void afterEvaluationGate(const QString &candidateId, IdDone done);
    void repairChain(const QString &candidateId, const QString &rootLabel, int attempt, IdDone done);
    void reprompt(const QString &candidateId, const QString &followUp, IdDone done);
    void manualEdit(const QString &candidateId, const QString &code, const QString &reason, IdDone done);
    void openGate(GateRequest request, std::function<void(const GateDecision &)> done);
    void recordGate(const GateRequest &request, const GateDecision &decision, const QString &candidateId = {});

    // Helpers.
    QString render(const QString &templ, const QHash<QString, QString> &vars, bool *ok);
    QHash<QString, QString> commonVars() const;
    QHash<QString, QString> candidateVars(const Candidate &c) const;
    QString profileText(const Candidate &c) const;
    QString errorHistory(const QString &candidateId) const;
    const Candidate *byLabel(const QString &label) const;
    QString effective(const QString &candidateId) const;
    QString selectBest() const;
    double score(const Candidate &c) const;
    QString code(const Candidate &c) const;
    void addCandidate(Candidate &c, const QString &code);
    void updateCandidate(const Candidate &c);
    void log(const QString &line);
    bool halted() const { return m_halted; }
    bool replayHasNoAnswer(const QString &callType) const;

    PipelineConfig m_config;
    QPointer<llm::LlmProvider> m_provider;
    QPointer<EvalBackend> m_evaluator;
    Decider *m_decider = nullptr;
    DetectorHook m_detect;
    std::unique_ptr<prompts::PromptLibrary> m_prompts;
    std::unique_ptr<store::RunWriter> m_writer;
    Run m_emptyRun;

    QString m_taskSource;
    QString m_taskName;
    QString m_gpuName;
    RunState m_state = RunState::Running;
    bool m_halted = false;
    bool m_stopRequested = false;
    QStringList m_seedFinals; ///< per seed: the last candidate of its chain (empty when skipped)
    QString m_baseOverride; ///< a gate's "use as base" for the next step
    QStringList m_stagePlan; ///< "grid", "block", "memory" still to run
    QStringList m_stageNotes;
    QSet<QString> m_skipRepairs; ///< candidates whose repairs a gate skipped

    std::optional<GateRequest> m_openGate;
    std::function<void(const GateDecision &)> m_gateDone;
    int m_gateSerial = 0;
    QHash<QString, Done> m_evalJobs; ///< evaluator job id -> continuation
    QPointer<llm::LlmCall> m_call;
};

} // namespace kwb::pipeline

Q_DECLARE_METATYPE(kwb::pipeline::GateRequest)
Q_DECLARE_METATYPE(kwb::pipeline::GateDecision)
