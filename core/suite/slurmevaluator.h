// SPDX-License-Identifier: MIT
#pragma once

#include "eval/evalbackend.h"
#include "suite/suiterunner.h"

#include <QElapsedTimer>
#include <QHash>
#include <QTimer>

class QProcess;

namespace kwb::suite {

/// Evaluations as Slurm jobs. Each job gets a folder under the exchange directory (a filesystem
/// both this machine and the nodes see) holding copies of the task and the candidate and a batch
/// script; the job runs `kwb eval --json` (or `kwb baseline --json`) there, which evaluates in the
/// usual isolated worker on the node's GPU, and leaves result.json (renamed into place when
/// complete). sbatch, squeue and scancel run asynchronously with a scrubbed environment (no API
/// key reaches a job). A job that leaves the queue without a result (lost, preempted, node failure,
/// time limit) is submitted again `retries` times, then becomes a clear verdict: run_timeout for a
/// time limit, internal_error naming the Slurm state otherwise. Cancel scancels the job.
class SlurmEvaluator : public EvalBackend
{
    Q_OBJECT
public:
    /// `exchangeDir` is created when missing.
    SlurmEvaluator(SlurmSettings settings, QString exchangeDir, QObject *parent = nullptr);
    ~SlurmEvaluator() override;

    QString evaluate(const EvalRequest &req) override;
    QString baseline(const EvalRequest &req, bool useCache = true) override;
    void cancel(const QString &jobId) override;

    /// The Slurm job id of a job (empty before sbatch answered).
    QString slurmJobId(const QString &jobId) const;
    /// The job's folder in the exchange directory.
    QString jobDirectory(const QString &jobId) const;

    /// Whether sbatch can be found; `why` says what is missing.
    static bool available(QString *why = nullptr);

private:
    struct Job;
    QString submitNew(const EvalRequest &req, bool baseline);
    void submit(Job *job);
    void poll();
    void onQueue(const QHash<QString, QString> &states);
    void lost(Job *job, const QString &state);
    void finish(Job *job, EvalResult result);
    QStringList commandFor(const Job &job) const;

    SlurmSettings m_settings;
    QString m_exchange;
    QHash<QString, Job *> m_jobs;
    QTimer m_poll;
    QProcess *m_query = nullptr;
    int m_nextId = 1;
};

} // namespace kwb::suite
