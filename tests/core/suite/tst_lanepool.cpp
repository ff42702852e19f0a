// SPDX-License-Identifier: MIT
// GPU lanes with real workers (torch on the CPU): each lane runs one evaluation at a time, lanes
// run side by side, jobs go to the least busy lane, and a lane's worker sees only its device
// (CUDA_VISIBLE_DEVICES, read back by a candidate that reports it).
#include "eval/evaluator.h"
#include "suite/lanepool.h"

#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace kwb;

namespace {
EvalRequest request(const QString &candidate)
{
    EvalRequest r;
    r.taskFile = QStringLiteral(KWB_TEST_DATA "/tasks/relu_small.py");
    r.candidateFile = candidate;
    r.device = QStringLiteral("cpu");
    r.trials = 1;
    r.warmup = 1;
    r.repeat = 3;
    r.python = qEnvironmentVariable("KWB_TEST_PYTHON", QStringLiteral("/usr/bin/python3"));
    return r;
}
} // namespace

class TestLanePool : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void oneEvaluationPerLaneLanesSideBySide()
    {
        QTemporaryDir tmp;
        // A candidate that takes a while (so jobs overlap) and reports what the worker sees.
        const QString cand = tmp.filePath(QStringLiteral("cand.py"));
        QFile f(cand);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("import os, time\nimport torch\nimport torch.nn as nn\n\nclass ModelNew(nn.Module):\n"
                "    def forward(self, x):\n        time.sleep(0.3)\n"
                "        raise RuntimeError('lane sees CUDA_VISIBLE_DEVICES=%s' % os.environ.get('CUDA_VISIBLE_DEVICES', 'unset'))\n");
        f.close();
        suite::LanePool pool;
        auto *a = new Evaluator;
        auto *b = new Evaluator;
        a->setLane(QStringLiteral("3"), QStringLiteral("test-lane-a-") + QString::number(QCoreApplication::applicationPid()));
        b->setLane(QStringLiteral("5"), QStringLiteral("test-lane-b-") + QString::number(QCoreApplication::applicationPid()));
        pool.addLane(a);
        pool.addLane(b);
        QCOMPARE(pool.laneCount(), 2);

        QHash<QString, int> laneOf;
        int running[2] = {0, 0}, most[2] = {0, 0}, together = 0, mostTogether = 0;
        connect(&pool, &suite::LanePool::jobAssigned, this, [&](const QString &id, int lane) { laneOf.insert(id, lane); });
        connect(&pool, &EvalBackend::jobStarted, this, [&](const QString &id) {
            const int l = laneOf.value(id);
            most[l] = std::max(most[l], ++running[l]);
            mostTogether = std::max(mostTogether, ++together);
        });
        QSignalSpy done(&pool, &EvalBackend::evaluationFinished);
        connect(&pool, &EvalBackend::evaluationFinished, this, [&](const QString &id, const EvalResult &) {
            --running[laneOf.value(id)];
            --together;
        });
        QStringList jobs;
        for (int i = 0; i < 4; ++i)
            jobs << pool.evaluate(request(cand));
        // Least busy first: the jobs alternate between the lanes.
        QCOMPARE(laneOf.value(jobs[0]), 0);
        QCOMPARE(laneOf.value(jobs[1]), 1);
        QCOMPARE(pool.pendingOn(0), 2);
        QCOMPARE(pool.pendingOn(1), 2);
        QTRY_VERIFY_WITH_TIMEOUT(done.size() == 4, 240000);
        QCOMPARE(most[0], 1);
        QCOMPARE(most[1], 1);
        QCOMPARE(mostTogether, 2);
        for (const auto &call : done) {
            const QString id = call.at(0).toString();
            const auto r = call.at(1).value<EvalResult>();
            QVERIFY(jobs.contains(id));
            QCOMPARE(r.status, EvalStatus::RuntimeError);
            const QString expected = laneOf.value(id) == 0 ? QStringLiteral("CUDA_VISIBLE_DEVICES=3") : QStringLiteral("CUDA_VISIBLE_DEVICES=5");
            QVERIFY2((r.reason + r.logTail).contains(expected), qPrintable(r.reason));
        }
        QCOMPARE(pool.pendingOn(0), 0);
    }
};

QTEST_GUILESS_MAIN(TestLanePool)
#include "tst_lanepool.moc"
