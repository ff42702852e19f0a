// SPDX-License-Identifier: MIT
#pragma once

#include "eval/baselinecache.h"
#include "eval/evalbackend.h"
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
class Evaluator : public EvalBackend
{
    Q_OBJECT
public:
    explicit Evaluator(QObject *parent = nullptr);
    ~Evaluator() override;

    /// Queues an evaluation; returns its job id at once.
    QString evaluate(const EvalRequest &req) override;
    /// Queues a baseline timing of the reference only; answered from the BaselineCache when it can.
    QString baseline(const EvalRequest &req, bool useCache = true) override;
    /// Cancels a queued or running job; evaluationFinished() follows with status Cancelled.
    void cancel(const QString &jobId) override;

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

    /// A suite lane: workers see only `visibleDevices` (CUDA_VISIBLE_DEVICES, e.g. "3"; empty:
    /// inherit) and jobs take the GPU lock `lockKey` (e.g. "gpu3"; empty: from the request's device).
    /// Discards a warm worker started under other settings.
    void setLane(const QString &visibleDevices, const QString &lockKey);

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
    QString m_nextPython; // the interpreter of the last job's worker: the warm one started when it ends
    bool m_sandboxOn = true;
    int m_nextId = 1;
    QString m_visibleDevices;
    QString m_lockKey;
};

} // namespace kwb
