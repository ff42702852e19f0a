// SPDX-License-Identifier: MIT
#pragma once

#include "eval/baselinecache.h"
#include "eval/evalrequest.h"
#include "model/evalresult.h"

#include <QHash>
#include <QJsonObject>
#include <QObject>
#include <QPointer>
#include <QQueue>
#include <QString>

#include <functional>
#include <memory>

namespace kwb {

class GpuLock;
class WorkerProcess;

/// Runs candidates (and baselines) in isolated worker processes, one evaluation per GPU at a time
/// (also across processes, through GpuLock). Asynchronous: evaluate() returns a job id at once and
/// evaluationFinished() brings the result. Jobs queue in the order they were submitted.
///
/// Each job gets a fresh scratch directory under the system temp dir (the candidate is copied
/// there; the worker's HOME, TRITON_CACHE_DIR and TORCH_EXTENSIONS_DIR point into it), a worker
/// with a scrubbed environment (no API keys), under bubblewrap when usable. A warm worker is kept
/// ready so the `import torch` cost is paid before the request arrives.
class Evaluator : public QObject
{
    Q_OBJECT
public:
    explicit Evaluator(QObject *parent = nullptr);
    ~Evaluator() override;

    /// Queues an evaluation; returns its job id at once.
    QString evaluate(const EvalRequest &req);
    /// Queues a baseline timing of the reference only; answered from the BaselineCache when it can.
    QString baseline(const EvalRequest &req, bool useCache = true);
    /// Cancels a queued or running job; evaluationFinished() follows with status Cancelled.
    void cancel(const QString &jobId);

    /// CLI and tests only: runs a local event loop until the result is there.
    EvalResult evaluateBlocking(const EvalRequest &req);
    EvalResult baselineBlocking(const EvalRequest &req, bool useCache = true);

    /// Keep one warm worker ready (default on; KWB_PRESTART=0 turns it off).
    void setPrestartEnabled(bool on);
    bool prestartEnabled() const { return m_prestart; }
    /// Starts the warm worker now (for `python`, default env::pythonInterpreter()) if none is ready.
    void prestart(const QString &python = {});

    /// Run workers under bubblewrap when it works (default; Sandbox::detect()), or never.
    void setSandboxEnabled(bool on);
    bool sandboxEnabled() const { return m_sandboxOn; }

    /// True when a warm worker has imported torch and waits for a request.
    bool warmWorkerReady() const;

    /// Jobs queued or running.
    int pendingJobs() const;
    /// The scratch directory of a running job (empty when none); deleted after the job ends
    /// unless KWB_KEEP_SCRATCH=1.
    QString scratchDirOf(const QString &jobId) const;

    BaselineCache &baselineCache();

Q_SIGNALS:
    /// A job got the GPU lock and its worker (the job is running now).
    void jobStarted(const QString &jobId);
    /// Worker phases (loading_task, loading_candidate, compiling, running, profiling) and the
    /// host's own: "queued", "waiting_for_gpu", "starting_worker".
    void phaseChanged(const QString &jobId, const QString &phase);
    /// One line of the worker's log (stderr).
    void logLine(const QString &jobId, const QString &line);
    void evaluationFinished(const QString &jobId, const kwb::EvalResult &result);

private:
    /// Starts one job with `start` (which returns its id) and runs a local event loop until it finishes.
    EvalResult runBlocking(const std::function<QString()> &start);
    struct Job;
    void enqueue(std::shared_ptr<Job> job);
    void pump();
    void startJob();
    void onWorkerReady();
    void onWorkerEvent(const QJsonObject &ev);
    void onWorkerFinished();
    void onLimitPassed();
    void finishJob(EvalResult result);
    WorkerProcess *takeWorker(const QString &python);
    WorkerProcess *spawnWorker(const QString &python);
    void discardWarm();
    static BaselineCache::Key cacheKeyFor(const Job &job, const QJsonObject &readyInfo);

    QQueue<std::shared_ptr<Job>> m_queue;
    std::shared_ptr<Job> m_current;
    QPointer<WorkerProcess> m_warm;
    GpuLock *m_lock = nullptr;
    std::unique_ptr<BaselineCache> m_cache;
    bool m_prestart = true;
    bool m_sandboxOn = true;
    int m_nextId = 1;
};

} // namespace kwb
