// SPDX-License-Identifier: MIT
#include "suite/lanepool.h"

namespace kwb::suite {

LanePool::LanePool(QObject *parent)
    : EvalBackend(parent)
{
}

LanePool::~LanePool()
{
    for (auto &l : m_lanes)
        delete l.backend;
}

void LanePool::addLane(EvalBackend *lane, const QString &deviceOverride)
{
    const int index = int(m_lanes.size());
    lane->setParent(nullptr);
    m_lanes.append(Lane{lane, deviceOverride, 0, {}});
    auto poolId = [this, index](const QString &laneJob) { return m_lanes.at(index).toPool.value(laneJob); };
    connect(lane, &EvalBackend::jobStarted, this, [this, poolId](const QString &j) {
        if (const QString id = poolId(j); !id.isEmpty())
            emit jobStarted(id);
    });
    connect(lane, &EvalBackend::phaseChanged, this, [this, poolId](const QString &j, const QString &phase) {
        if (const QString id = poolId(j); !id.isEmpty())
            emit phaseChanged(id, phase);
    });
    connect(lane, &EvalBackend::logLine, this, [this, poolId](const QString &j, const QString &line) {
        if (const QString id = poolId(j); !id.isEmpty())
            emit logLine(id, line);
    });
    connect(lane, &EvalBackend::jobNote, this, [this, poolId](const QString &j, const QString &line) {
        if (const QString id = poolId(j); !id.isEmpty())
            emit jobNote(id, line);
    });
    connect(lane, &EvalBackend::evaluationFinished, this, [this, index](const QString &j, const EvalResult &r) {
        Lane &l = m_lanes[index];
        const QString id = l.toPool.take(j);
        if (id.isEmpty())
            return;
        --l.pending;
        m_jobs.remove(id);
        emit evaluationFinished(id, r);
    });
}

int LanePool::laneOf(const QString &jobId) const
{
    const auto it = m_jobs.constFind(jobId);
    return it == m_jobs.cend() ? -1 : it->first;
}

int LanePool::pickLane() const
{
    int best = 0;
    for (int i = 1; i < m_lanes.size(); ++i)
        if (m_lanes.at(i).pending < m_lanes.at(best).pending)
            best = i;
    return best;
}

template<typename Submit> QString LanePool::submit(EvalRequest req, Submit submitTo)
{
    Q_ASSERT(!m_lanes.isEmpty());
    const int index = pickLane();
    Lane &l = m_lanes[index];
    if (!l.deviceOverride.isEmpty() && req.device.startsWith(QLatin1String("cuda")))
        req.device = l.deviceOverride;
    const QString id = QStringLiteral("p%1").arg(m_nextId++);
    const QString laneJob = submitTo(l.backend, req);
    l.toPool.insert(laneJob, id);
    ++l.pending;
    m_jobs.insert(id, {index, laneJob});
    emit jobAssigned(id, index);
    return id;
}

QString LanePool::evaluate(const EvalRequest &req)
{
    return submit(req, [](EvalBackend *b, const EvalRequest &r) { return b->evaluate(r); });
}

QString LanePool::baseline(const EvalRequest &req, bool useCache)
{
    return submit(req, [useCache](EvalBackend *b, const EvalRequest &r) { return b->baseline(r, useCache); });
}

void LanePool::cancel(const QString &jobId)
{
    const auto it = m_jobs.constFind(jobId);
    if (it == m_jobs.cend())
        return;
    m_lanes.at(it->first).backend->cancel(it->second);
}

} // namespace kwb::suite
