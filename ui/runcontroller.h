// SPDX-License-Identifier: MIT
#pragma once

#include "model/run.h"
#include "newrun/newrundialog.h"

#include <QObject>
#include <QSet>
#include <QString>

#include <functional>
#include <memory>

namespace kwb {
class Evaluator;
namespace llm {
class LlmProvider;
}
namespace pipeline {
class Pipeline;
struct PipelineConfig;
}

/// Owns what a live run needs in the GUI: the LLM provider (the real one when it has a key, else the
/// replay of the task's shipped cassette), one Evaluator for the whole session (prestarted so the
/// first evaluation does not pay for `import torch`) and the Pipeline of the current run. Knows no
/// widget: MainWindow attaches the pipeline to its views and shows progress() in the status bar.
class RunController : public QObject
{
    Q_OBJECT
public:
    explicit RunController(QObject *parent = nullptr);
    ~RunController() override;

    /// Starts the warm evaluation worker now (idempotent); call once at start-up.
    void prestart();
    /// Starts a run; false with `error` when the provider, the task or the run directory cannot be
    /// used (nothing is running then). A run still in flight is stopped first.
    bool start(const NewRunSettings &settings, const QString &runsDir, QString *error = nullptr);
    /// Stops after the current step and cancels the evaluation in flight (the run is recorded as
    /// stopped and can be resumed).
    void stop();

    bool isRunning() const;
    /// The current (or last) run's pipeline; null before the first start().
    pipeline::Pipeline *pipeline() const { return m_pipeline.get(); }
    Evaluator *evaluator() const;
    /// True when the run replays an authored cassette (no API key, or the replay provider chosen).
    bool isShippedReplay() const { return m_shippedReplay; }
    /// One line about the provider, e.g. "replay of an authored cassette (no API key for deepseek)".
    QString providerNote() const { return m_providerNote; }
    /// The current step and phase, as progress() last said.
    QString progressText() const { return m_progress; }

    /// Replays this cassette instead of choosing a provider (tests; a cassette with extra answers).
    void setCassetteOverride(const QString &cassette) { m_cassetteOverride = cassette; }
    /// Adjusts the pipeline configuration after the settings are applied (tests: fewer seeds, no detectors).
    void setConfigHook(std::function<void(pipeline::PipelineConfig &)> hook) { m_configHook = std::move(hook); }
    /// Skips the detector runner of the new runs (tests, and machines whose worker has no detectors).
    void setDetectorsEnabled(bool on) { m_detectors = on; }

signals:
    /// A run started: its pipeline is ready to attach (signals have not fired yet).
    void runStarted(kwb::pipeline::Pipeline *pipeline, const QString &runDir);
    /// Current step and phase, for a status bar ("seed1 · evaluating: correctness").
    void progress(const QString &text);
    void runFinished(kwb::RunState state);

private:
    void setStep(const QString &step);
    void setPhase(const QString &phase);

    std::unique_ptr<Evaluator> m_evaluator;
    std::unique_ptr<llm::LlmProvider> m_provider;
    std::unique_ptr<pipeline::Pipeline> m_pipeline;
    QSet<QString> m_jobs; ///< evaluator jobs running now
    QString m_step, m_phase, m_progress;
    QString m_providerNote;
    QString m_cassetteOverride;
    std::function<void(pipeline::PipelineConfig &)> m_configHook;
    bool m_shippedReplay = false;
    bool m_detectors = true;
    bool m_running = false;
};

} // namespace kwb
