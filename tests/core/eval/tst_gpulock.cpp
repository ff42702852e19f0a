// SPDX-License-Identifier: MIT
// The GPU lock across two processes: a helper executable holds it; this process waits without
// blocking its event loop, gets it when the helper exits, and takes over the lock of a killed holder.
// Also the evaluator waits for a lock held by another process.
#include "evaltestutil.h"

#include "eval/gpulock.h"
#include "model/evalresult.h"

#include <QProcess>
#include <QSignalSpy>
#include <QTimer>

using namespace kwb;
using namespace kwbtest;

class TestGpuLock : public QObject
{
    Q_OBJECT
    QTemporaryDir m_cache;

    /// Starts the helper holding `key`; returns once it says "held".
    bool startHolder(QProcess &p, const QString &key)
    {
        p.setProgram(QStringLiteral(KWB_LOCKHOLDER));
        p.setArguments({key});
        p.start();
        if (!p.waitForStarted(10000))
            return false;
        if (!QTest::qWaitFor([&] { return p.canReadLine() || p.state() == QProcess::NotRunning; }, 10000))
            return false;
        return p.readLine().trimmed() == "held";
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_cache.isValid());
        setUpEnvironment(m_cache);
    }

    void keys()
    {
        QCOMPARE(GpuLock::keyForDevice(QStringLiteral("cpu")), QStringLiteral("cpu"));
        QCOMPARE(GpuLock::keyForDevice(QStringLiteral("auto")), QStringLiteral("gpu0"));
        QCOMPARE(GpuLock::keyForDevice(QStringLiteral("cuda")), QStringLiteral("gpu0"));
        QCOMPARE(GpuLock::keyForDevice(QStringLiteral("cuda:1")), QStringLiteral("gpu1"));
    }

    void waitsForAnotherProcess()
    {
        QProcess holder;
        QVERIFY(startHolder(holder, QStringLiteral("gpu0")));
        GpuLock lock(QStringLiteral("gpu0"));
        QVERIFY(lock.filePath().startsWith(m_cache.path()));
        QVERIFY(!lock.tryAcquire());
        QSignalSpy acquired(&lock, &GpuLock::acquired);
        lock.acquire();
        QVERIFY(lock.isWaiting());
        // The event loop keeps running while we wait (a timer fires), and the lock stays theirs.
        bool ticked = false;
        QTimer::singleShot(200, this, [&] { ticked = true; });
        QTRY_VERIFY(ticked);
        QCOMPARE(acquired.size(), 0);
        QVERIFY(!lock.isHeld());
        // The holder lets go: we get it.
        holder.write("bye\n");
        QVERIFY(holder.waitForFinished(10000));
        QVERIFY(acquired.wait(10000) || acquired.size() == 1);
        QVERIFY(lock.isHeld());
        // And now the helper cannot have it.
        QProcess second;
        second.setProgram(QStringLiteral(KWB_LOCKHOLDER));
        second.setArguments({QStringLiteral("gpu0")});
        second.start();
        QVERIFY(second.waitForStarted());
        // It keeps waiting while we hold it (a negative check needs some time to pass).
        QVERIFY(!QTest::qWaitFor([&] { return second.canReadLine(); }, 300));
        lock.release();
        QTRY_VERIFY_WITH_TIMEOUT(second.canReadLine(), 10000);
        QCOMPARE(second.readLine().trimmed(), QByteArray("held"));
        second.write("bye\n");
        QVERIFY(second.waitForFinished(10000));
    }

    void killedHolderDoesNotBlockForever()
    {
        QProcess holder;
        QVERIFY(startHolder(holder, QStringLiteral("gpu3")));
        GpuLock lock(QStringLiteral("gpu3"));
        QVERIFY(!lock.tryAcquire());
        holder.kill(); // SIGKILL: no unlock, the lock file stays behind
        QVERIFY(holder.waitForFinished(10000));
        QSignalSpy acquired(&lock, &GpuLock::acquired);
        lock.acquire();
        QVERIFY(acquired.wait(10000) || acquired.size() == 1);
    }

    void evaluatorWaitsForLockOfAnotherProcess()
    {
        if (!workerPresent())
            QSKIP("the worker is not there yet");
        QProcess holder;
        QVERIFY(startHolder(holder, QStringLiteral("cpu")));
        Evaluator ev;
        QSignalSpy phases(&ev, &Evaluator::phaseChanged);
        QSignalSpy started(&ev, &Evaluator::jobStarted);
        QSignalSpy finished(&ev, &Evaluator::evaluationFinished);
        const QString id = ev.evaluate(request(data(QStringLiteral("ok.py"))));
        QTRY_VERIFY_WITH_TIMEOUT(!phases.isEmpty() && phases.last().at(1).toString() == QStringLiteral("waiting_for_gpu"), 5000);
        bool ticked = false;
        QTimer::singleShot(300, this, [&] { ticked = true; });
        QTRY_VERIFY(ticked);
        QCOMPARE(started.size(), 0);
        holder.write("bye\n");
        QVERIFY(holder.waitForFinished(10000));
        QVERIFY(finished.wait(60000));
        QCOMPARE(finished.first().at(0).toString(), id);
        QCOMPARE(finished.first().at(1).value<EvalResult>().status, EvalStatus::Ok);
    }

    // Regression: two `kwb run` processes on one GPU hung for ever. The job that waited for the lock
    // was started from the lock's acquired() signal, found the pre-started worker already ready,
    // and mistook the lock for a stale worker's signal; no limit was armed, so nothing ended it.
    void waitingJobUsesReadyPrestartedWorker()
    {
        if (!workerPresent())
            QSKIP("the worker is not there yet");
        QProcess holder;
        QVERIFY(startHolder(holder, QStringLiteral("cpu")));
        Evaluator ev;
        ev.setPrestartEnabled(true);
        ev.prestart();
        QTRY_VERIFY_WITH_TIMEOUT(ev.warmWorkerReady(), 120000);
        QSignalSpy phases(&ev, &Evaluator::phaseChanged);
        QSignalSpy finished(&ev, &Evaluator::evaluationFinished);
        ev.evaluate(request(data(QStringLiteral("ok.py"))));
        QTRY_VERIFY_WITH_TIMEOUT(!phases.isEmpty() && phases.last().at(1).toString() == QStringLiteral("waiting_for_gpu"), 5000);
        holder.write("bye\n");
        QVERIFY(holder.waitForFinished(10000));
        QVERIFY(finished.wait(60000));
        QCOMPARE(finished.first().at(1).value<EvalResult>().status, EvalStatus::Ok);
    }
};

QTEST_GUILESS_MAIN(TestGpuLock)
#include "tst_gpulock.moc"
