// SPDX-License-Identifier: MIT
// The evaluator end to end with the REAL worker and /usr/bin/python3 (torch on CPU): correct, wrong,
// crash and the next evaluation, bad inputs, a broken interpreter, baseline cache.
#include "evaltestutil.h"

#include "eval/baselinecache.h"
#include "model/evalresult.h"

#include <QSignalSpy>

using namespace kwb;
using namespace kwbtest;

class TestEvaluator : public QObject
{
    Q_OBJECT
    QTemporaryDir m_cache;
    // One engine for the whole test, as in the application: its warm worker hides `import torch`.
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

    void correct()
    {
        Evaluator &ev = *m_ev;
        QSignalSpy phases(&ev, &Evaluator::phaseChanged);
        const EvalResult r = ev.evaluateBlocking(request(data(QStringLiteral("ok.py"))));
        QVERIFY2(r.status == EvalStatus::Ok, qPrintable(toName(r.status) + QStringLiteral(": ") + r.reason + QLatin1Char('\n') + r.logTail));
        QVERIFY(r.correct());
        QCOMPARE(r.trials, 2);
        QVERIFY(r.candidate.isValid());
        QVERIFY(r.eager.isValid());
        QVERIFY(!r.onGpu);
        QVERIFY(!r.torchVersion.isEmpty());
        QVERIFY(r.wallSeconds > 0.0);
        QVERIFY(!r.sandboxNote.isEmpty());
        QStringList seen;
        for (const auto &args : phases)
            seen << args.at(1).toString();
        QVERIFY2(seen.contains(QStringLiteral("queued")) && seen.contains(QStringLiteral("compiling"))
                     && seen.contains(QStringLiteral("running")),
                 qPrintable(seen.join(QLatin1Char(','))));
        QCOMPARE(ev.pendingJobs(), 0);
    }

    void wrong()
    {
        Evaluator &ev = *m_ev;
        const EvalResult r = ev.evaluateBlocking(request(data(QStringLiteral("wrong.py"))));
        QVERIFY2(r.status == EvalStatus::WrongResult, qPrintable(toName(r.status) + QStringLiteral(": ") + r.reason));
        QCOMPARE(r.failingTrial, 0);
        QVERIFY(r.maxAbsErr > 0.1);
        QVERIFY(!r.reason.isEmpty());
    }

    void crashThenNextEvaluationWorks()
    {
        Evaluator &ev = *m_ev;
        const EvalResult crash = ev.evaluateBlocking(request(data(QStringLiteral("segfault.py"))));
        QVERIFY2(crash.status == EvalStatus::Crash, qPrintable(toName(crash.status) + QStringLiteral(": ") + crash.reason));
        QVERIFY2(crash.reason.contains(QStringLiteral("SIGSEGV")), qPrintable(crash.reason));
        QVERIFY(!crash.logTail.isEmpty());
        const EvalResult next = ev.evaluateBlocking(request(data(QStringLiteral("ok.py"))));
        QVERIFY2(next.status == EvalStatus::Ok, qPrintable(toName(next.status) + QStringLiteral(": ") + next.reason));
    }

    void missingFilesAreReportedNotRun()
    {
        Evaluator &ev = *m_ev;
        EvalResult r = ev.evaluateBlocking(request(QStringLiteral("/nonexistent/candidate.py")));
        QCOMPARE(r.status, EvalStatus::InternalError);
        QVERIFY(r.reason.contains(QStringLiteral("candidate file not found")));
        EvalRequest req = request(data(QStringLiteral("ok.py")));
        req.taskFile = data(QStringLiteral("not_a_task.py"));
        r = ev.evaluateBlocking(req);
        QCOMPARE(r.status, EvalStatus::InternalError);
        QVERIFY2(r.reason.contains(QStringLiteral("get_init_inputs")), qPrintable(r.reason));
    }

    void brokenInterpreterIsAnInternalError()
    {
        Evaluator ev;
        ev.setPrestartEnabled(false);
        EvalRequest req = request(data(QStringLiteral("ok.py")));
        req.python = QStringLiteral("/nonexistent/python3");
        const EvalResult r = ev.evaluateBlocking(req);
        QCOMPARE(r.status, EvalStatus::InternalError);
        QVERIFY2(r.reason.contains(QStringLiteral("did not start")), qPrintable(r.reason));
    }

    void baselineAndCache()
    {
        Evaluator &ev = *m_ev;
        ev.baselineCache().clear();
        EvalRequest req = request(QString());
        const EvalResult first = ev.baselineBlocking(req);
        QVERIFY2(first.status == EvalStatus::Ok, qPrintable(toName(first.status) + QStringLiteral(": ") + first.reason + QLatin1Char('\n') + first.logTail));
        QVERIFY(first.eager.isValid());
        QVERIFY(!first.reason.contains(QStringLiteral("cached")));
        const EvalResult second = ev.baselineBlocking(req);
        QCOMPARE(second.status, EvalStatus::Ok);
        QVERIFY2(second.reason.contains(QStringLiteral("cached")), qPrintable(second.reason));
        QCOMPARE(second.eager.medianMs, first.eager.medianMs);
        // Other settings are another key; --no-cache measures again.
        req.repeat = 4;
        QVERIFY(!ev.baselineBlocking(req).reason.contains(QStringLiteral("cached")));
        req.repeat = 3;
        const EvalResult fresh = ev.baselineBlocking(req, false);
        QVERIFY(!fresh.reason.contains(QStringLiteral("cached")));
        QVERIFY(QDir(ev.baselineCache().dir()).entryList({QStringLiteral("*.json")}).size() >= 2);
    }

};

QTEST_GUILESS_MAIN(TestEvaluator)
#include "tst_evaluator.moc"
