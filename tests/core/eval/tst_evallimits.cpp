// SPDX-License-Identifier: MIT
// The evaluator's limits and queue with the REAL worker and /usr/bin/python3 (torch on CPU): compile
// limit vs run limit, cancel (running and queued), two engines sharing one device.
#include "evaltestutil.h"

#include "model/evalresult.h"

#include <QSignalSpy>

using namespace kwb;
using namespace kwbtest;

class TestEvalLimits : public QObject
{
    Q_OBJECT
    QTemporaryDir m_cache;
    QTemporaryDir m_files;
    std::unique_ptr<Evaluator> m_ev;

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_cache.isValid());
        setUpEnvironment(m_cache);
        if (!workerPresent())
            QSKIP("the worker (core/eval/worker/kwb_worker.py) is not there yet");
        m_ev = std::make_unique<Evaluator>();
        m_ev->prestart();
    }

    void cleanupTestCase() { m_ev.reset(); }

    void compileLimitIsNotRunLimit()
    {
        Evaluator &ev = *m_ev;
        // The first call takes 8 s: over a 1 s compile limit ...
        EvalRequest req = request(data(QStringLiteral("slow_compile.py")));
        req.compileTimeoutSec = 1;
        req.runTimeoutSec = 60;
        const EvalResult slow = ev.evaluateBlocking(req);
        QVERIFY2(slow.status == EvalStatus::CompileTimeout, qPrintable(toName(slow.status) + QStringLiteral(": ") + slow.reason));
        QVERIFY2(slow.reason.contains(QStringLiteral("compil")), qPrintable(slow.reason));
        QVERIFY(slow.wallSeconds < 30);
        // ... but a 6 s run limit does not cover it: the run limit starts at `running`. (The running phase takes
        // ~1.5 s on a quiet 2-core machine; a 2 s limit against a 3 s compile ran out under a loaded CI run.)
        req.compileTimeoutSec = 60;
        req.runTimeoutSec = 6;
        const EvalResult fine = ev.evaluateBlocking(req);
        QVERIFY2(fine.status == EvalStatus::Ok, qPrintable(toName(fine.status) + QStringLiteral(": ") + fine.reason));
        QVERIFY(fine.wallSeconds > 8.0);
    }

    void cancelRunningAndQueued()
    {
        const QString mark = token();
        const QString hang = instantiate(m_files, QStringLiteral("hang_run.py"), {{QStringLiteral("KWB_MARK_TOKEN"), mark}});
        QVERIFY(!hang.isEmpty());
        Evaluator &ev = *m_ev;
        LogCollector log(ev);
        QSignalSpy finished(&ev, &Evaluator::evaluationFinished);
        const QString first = ev.evaluate(request(hang));
        const QString second = ev.evaluate(request(data(QStringLiteral("ok.py"))));
        QCOMPARE(ev.pendingJobs(), 2);
        QTRY_VERIFY_WITH_TIMEOUT(log.contains(QStringLiteral("grandchild started")), 30000);
        ev.cancel(second); // queued
        ev.cancel(first); // running
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 2, 10000);
        QHash<QString, EvalResult> byId;
        for (const auto &args : finished)
            byId.insert(args.at(0).toString(), args.at(1).value<EvalResult>());
        QCOMPARE(byId.value(first).status, EvalStatus::Cancelled);
        QCOMPARE(byId.value(second).status, EvalStatus::Cancelled);
        QVERIFY(byId.value(second).reason.contains(QStringLiteral("before it started")));
        QTRY_VERIFY_WITH_TIMEOUT(processesWith(mark).isEmpty(), 5000);
        QCOMPARE(ev.pendingJobs(), 0);
        // The evaluator is usable afterwards.
        const EvalResult next = ev.evaluateBlocking(request(data(QStringLiteral("ok.py"))));
        QCOMPARE(next.status, EvalStatus::Ok);
    }

    void twoEvaluatorsShareTheDevice()
    {
        // Two engines in one process (like two windows) still run one evaluation at a time.
        Evaluator &a = *m_ev;
        Evaluator b;
        b.prestart(); // its worker imports torch while `a` runs
        QSignalSpy aDone(&a, &Evaluator::evaluationFinished);
        QSignalSpy bDone(&b, &Evaluator::evaluationFinished);
        QSignalSpy bPhase(&b, &Evaluator::phaseChanged);
        QSignalSpy aStarted(&a, &Evaluator::jobStarted);
        a.evaluate(request(data(QStringLiteral("slow_compile.py"))));
        QVERIFY(aStarted.wait(10000));
        b.evaluate(request(data(QStringLiteral("ok.py"))));
        QTRY_VERIFY_WITH_TIMEOUT(aDone.size() == 1 && bDone.size() == 1, 60000);
        QStringList bPhases;
        for (const auto &args : bPhase)
            bPhases << args.at(1).toString();
        QVERIFY2(bPhases.contains(QStringLiteral("waiting_for_gpu")), qPrintable(bPhases.join(QLatin1Char(','))));
        QCOMPARE(aDone.first().at(1).value<EvalResult>().status, EvalStatus::Ok);
        QCOMPARE(bDone.first().at(1).value<EvalResult>().status, EvalStatus::Ok);
    }
};

QTEST_GUILESS_MAIN(TestEvalLimits)
#include "tst_evallimits.moc"
