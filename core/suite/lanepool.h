// SPDX-License-Identifier: MIT
#pragma once

#include "eval/evalbackend.h"

#include <QHash>
#include <QList>

#include <memory>

namespace kwb::suite {

/// The evaluation backend a suite's pipelines share: several lanes (one per GPU, each a backend
/// running one evaluation at a time), each job going to the lane with the fewest jobs queued.
/// Job ids are the pool's own; the lanes' are never seen outside.
class LanePool : public EvalBackend
{
    Q_OBJECT
public:
    explicit LanePool(QObject *parent = nullptr);
    ~LanePool() override;

    /// Adds a lane (owned). `deviceOverride` replaces a request's "cuda:N" device (a lane's worker
    /// sees one GPU, always cuda:0); empty: requests go unchanged.
    void addLane(EvalBackend *lane, const QString &deviceOverride = {});
    int laneCount() const { return int(m_lanes.size()); }
    EvalBackend *lane(int i) const { return m_lanes.at(i).backend; }
    /// Jobs queued or running on lane `i`.
    int pendingOn(int i) const { return m_lanes.at(i).pending; }
    /// The lane a pool job went to (-1 when unknown or finished).
    int laneOf(const QString &jobId) const;

    QString evaluate(const EvalRequest &req) override;
    QString baseline(const EvalRequest &req, bool useCache = true) override;
    void cancel(const QString &jobId) override;

Q_SIGNALS:
    /// A job went to lane `lane` (the CLI and the log say where each evaluation runs).
    void jobAssigned(const QString &jobId, int lane);

private:
    struct Lane {
        EvalBackend *backend = nullptr;
        QString deviceOverride;
        int pending = 0;
        QHash<QString, QString> toPool; ///< lane job id -> pool job id
    };
    template<typename Submit> QString submit(EvalRequest req, Submit submitTo);
    int pickLane() const;

    QList<Lane> m_lanes;
    QHash<QString, QPair<int, QString>> m_jobs; ///< pool job id -> (lane, lane job id)
    int m_nextId = 1;
};

} // namespace kwb::suite
