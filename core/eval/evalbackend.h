// SPDX-License-Identifier: MIT
#pragma once

#include "eval/evalrequest.h"
#include "model/evalresult.h"

#include <QObject>
#include <QString>

namespace kwb {

/// Where the pipeline's evaluations run: the local Evaluator (worker processes on this machine) or
/// a cluster (suite::SlurmEvaluator). Asynchronous: evaluate() and baseline() return a job id at once
/// and evaluationFinished() brings the result, also for a cancelled job.
class EvalBackend : public QObject
{
    Q_OBJECT
public:
    using QObject::QObject;
    ~EvalBackend() override = default;

    /// Queues an evaluation of req.candidateFile against req.taskFile; returns its job id.
    virtual QString evaluate(const EvalRequest &req) = 0;
    /// Queues a timing of the reference only (a cache may answer it).
    virtual QString baseline(const EvalRequest &req, bool useCache = true) = 0;
    /// Cancels a queued or running job; evaluationFinished() follows with status Cancelled.
    virtual void cancel(const QString &jobId) = 0;

Q_SIGNALS:
    /// A job started running (it got its GPU, or its cluster job started).
    void jobStarted(const QString &jobId);
    /// Progress of a job: worker phases, "queued", "waiting_for_gpu", "submitted" ...
    void phaseChanged(const QString &jobId, const QString &phase);
    /// One line of the job's log.
    void logLine(const QString &jobId, const QString &line);
    /// One line worth keeping in the run's log (a cluster job id, a resubmission).
    void jobNote(const QString &jobId, const QString &line);
    void evaluationFinished(const QString &jobId, const kwb::EvalResult &result);
};

} // namespace kwb
