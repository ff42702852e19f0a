// SPDX-License-Identifier: MIT
#pragma once

#include "pipeline/pipeline.h"
#include "pipeline/runsetup.h"
#include "suite/suite.h"

#include <QElapsedTimer>
#include <QHash>
#include <QObject>
#include <QStringList>

#include <functional>
#include <memory>

namespace kwb::suite {

class LanePool;

/// How evaluations reach a Slurm cluster (SlurmEvaluator).
struct SlurmSettings {
    QString partition; ///< empty: the cluster's default
    QString account;
    QString timeLimit = QStringLiteral("00:30:00"); ///< sbatch --time, per evaluation
    QString gres = QStringLiteral("gpu:1"); ///< sbatch --gres; empty for CPU partitions
    QStringList extraArgs; ///< more sbatch options, as given
    QString exchangeDir; ///< a folder both sides see; empty: <suite dir>/slurm
    QString kwbBinary; ///< the `kwb` the job runs (must be reachable on the nodes); empty: this one
    int pollMs = 1000; ///< squeue/sacct polling period
    int retries = 1; ///< a lost, preempted or timed-out job is submitted again this many times
    QJsonObject toJson() const;
    static SlurmSettings fromJson(const QJsonObject &o);
};

/// What a suite is asked to do. Recorded in suite.json, so --resume continues with the same settings.
struct SuiteConfig {
    QString suiteDir;
    pipeline::PipelineConfig pipeline; ///< per task: taskFile, runsDir, resumeDir and cassette are filled in
    pipeline::ProviderRequest provider; ///< per task: taskFile is filled in
    int jobs = 1; ///< runs at the same time
    QStringList gpus; ///< CUDA device ids, one lane each; empty: one lane with the devices this process sees
    QString backend = QStringLiteral("local"); ///< "local" or "slurm"
    SlurmSettings slurm;
    int taskTimeoutSec = 0; ///< a run still going after this long is aborted and marked failed (0: no limit)

    QJsonObject toJson() const;
    /// Reads what toJson wrote; `suiteDir` is not part of it.
    static SuiteConfig fromJson(const QJsonObject &o);
};

/// The GPUs of this host for `--gpus all`: the entries of $CUDA_VISIBLE_DEVICES when set, else
/// NVML's device indices; empty when there is no GPU.
QStringList hostGpus();

/// Runs a suite: up to `jobs` pipelines at once, all sharing one LanePool (one evaluation per GPU
/// at a time; LLM calls of one run overlap another's evaluation). suite.json is rewritten atomically
/// on every state change and on every evaluated candidate, so a suite killed at any moment resumes:
/// finished tasks are kept, interrupted runs continue through the run store's resume.
/// A run that fails, hangs past the time limit or cannot start is marked failed; the suite goes on.
class SuiteRunner : public QObject
{
    Q_OBJECT
public:
    explicit SuiteRunner(SuiteConfig config, QObject *parent = nullptr);
    ~SuiteRunner() override;

    /// Starts a new suite over `taskFiles` in config.suiteDir (which must not hold a suite yet).
    bool start(const QStringList &taskFiles, QString *error = nullptr);
    /// Continues the suite in config.suiteDir: finished and failed tasks are kept, the others run
    /// (resuming their run directory when there is one).
    bool resume(QString *error = nullptr);
    /// CLI and tests: spins an event loop until finished(). False when nothing could start.
    bool runBlocking(const QStringList &taskFiles, bool resume, QString *error = nullptr);

    /// Tests and demos: the local backend's single lane is made by `make` (e.g. a ScriptedEvaluator)
    /// instead of one Evaluator per GPU. Set before start() or resume(); the Slurm backend ignores it.
    void setLocalBackendFactory(std::function<EvalBackend *()> make) { m_localBackend = std::move(make); }

    /// Stops every running pipeline after its current step; their entries become "stopped".
    void stop();
    /// Kills the worker processes and ends at once without recording anything (front-end shutdown).
    void abort();

    const Suite &suite() const { return m_suite; }
    const SuiteConfig &config() const { return m_config; }
    bool isRunning() const { return m_started && !m_finished; }
    /// The live pipeline of entry `index` (null when it does not run now).
    pipeline::Pipeline *pipelineOf(int index) const;
    LanePool *lanes() const { return m_pool; }
    /// The absolute run directory of an entry (empty before it started).
    QString runDirectoryOf(int index) const;

Q_SIGNALS:
    void entryChanged(int index, const kwb::suite::SuiteEntry &entry);
    /// A pipeline of entry `index` started (the GUI follows it live).
    void pipelineStarted(int index, kwb::pipeline::Pipeline *pipeline);
    /// Lines for a log: "[task] line" (pipeline logs, job placement, failures).
    void logLine(const QString &line);
    void finished();

private:
    struct Active;
    bool begin(QString *error); ///< writes suite.json, makes the lanes, starts launching
    void buildLanes();
    void launchNext();
    void startTask(int index);
    void onTaskFinished(int index, RunState state);
    void failTask(int index, const QString &reason);
    void refresh(int index);
    void save();
    void checkDone();

    SuiteConfig m_config;
    std::function<EvalBackend *()> m_localBackend;
    Suite m_suite;
    LanePool *m_pool = nullptr;
    QHash<int, Active *> m_active;
    bool m_started = false;
    bool m_finished = false;
    bool m_stopping = false;
    QString m_saveError;
};

} // namespace kwb::suite
