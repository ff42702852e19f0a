// SPDX-License-Identifier: MIT
// The scripted evaluator the pipeline's logic tests run on: rules matched by the candidate's code
// and the task, exact figures, flags, baselines, a script file and its errors, asynchronous answers
// in order, holding and cancelling. No worker runs here.
#include "eval/scriptedevaluator.h"
#include "model/candidate.h"

#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace kwb;

namespace {
const char *kTask = KWB_SOURCE_DIR "/tasks/level1/1_ReLU.py";
}

class TestScriptedEvaluator : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_tmp;

    QString write(const QString &name, const QByteArray &text)
    {
        const QString path = m_tmp.filePath(name);
        QFile f(path);
        f.open(QIODevice::WriteOnly);
        f.write(text);
        return path;
    }
    EvalRequest request(const QString &candidateFile, const QString &task = QString::fromLatin1(kTask))
    {
        EvalRequest r;
        r.taskFile = task;
        r.candidateFile = candidateFile;
        r.trials = 2;
        r.repeat = 7;
        return r;
    }
    /// Evaluates and waits for the answer (delivered from the event loop).
    static EvalResult evaluate(ScriptedEvaluator &ev, const EvalRequest &req)
    {
        QSignalSpy done(&ev, &EvalBackend::evaluationFinished);
        const QString id = ev.evaluate(req);
        if (!done.wait(5000))
            return {};
        return done.first().at(0).toString() == id ? done.first().at(1).value<EvalResult>() : EvalResult{};
    }

private Q_SLOTS:
    void initTestCase()
    {
        qRegisterMetaType<EvalResult>();
        QVERIFY(m_tmp.isValid());
    }

    void firstMatchingRuleAnswersWithExactFigures()
    {
        ScriptedEvaluator ev;
        ev.setBaseline(2.0, 0.5);
        ev.addFailure(QStringLiteral("relu_kernel"), EvalStatus::RuntimeError, QStringLiteral("AttributeError: relu_kernel"));
        ev.addCorrect(QStringLiteral("clamp(min=0.0)"), 0.25);
        ev.addCorrect(QStringLiteral("clamp"), 40.0); // reached only by code without the line above

        const EvalResult fast = evaluate(ev, request(write(QStringLiteral("fast.py"), "return x.clamp(min=0.0)\n")));
        QCOMPARE(fast.status, EvalStatus::Ok);
        QCOMPARE(fast.candidate.medianMs, 0.25);
        QCOMPARE(fast.candidate.minMs, 0.25);
        QCOMPARE(fast.candidate.samples, 7);
        QCOMPARE(fast.eager.medianMs, 2.0);
        QCOMPARE(fast.graph.medianMs, 0.5);
        QCOMPARE(fast.speedupVsEager(), 8.0);
        QCOMPARE(fast.trials, 2);
        QCOMPARE(fast.device, QStringLiteral("scripted (nothing ran)"));
        QVERIFY2(fast.logTail.contains(QLatin1String("rule 1")) && fast.logTail.contains(QLatin1String("nothing was measured")),
                 qPrintable(fast.logTail));

        const EvalResult slow = evaluate(ev, request(write(QStringLiteral("slow.py"), "for i in rows: out[i] = x[i].clamp(min=0)\n")));
        QCOMPARE(slow.candidate.medianMs, 40.0);

        const EvalResult broken = evaluate(ev, request(write(QStringLiteral("broken.py"), "x.relu_kernel() # clamp(min=0.0)\n")));
        QCOMPARE(broken.status, EvalStatus::RuntimeError);
        QCOMPARE(broken.reason, QStringLiteral("AttributeError: relu_kernel"));
        QVERIFY(!broken.candidate.isValid());

        QCOMPARE(ev.calls().size(), 3);
        QCOMPARE(ev.calls().at(0).rule, 1);
        QCOMPARE(ev.calls().at(1).rule, 2);
        QCOMPARE(ev.calls().at(2).rule, 0);
        QCOMPARE(ev.evaluationsOf(QStringLiteral("relu_kernel")), 1);
    }

    void noMatchingRuleIsAnInternalErrorThatNamesTheCandidate()
    {
        ScriptedEvaluator ev;
        ev.addCorrect(QStringLiteral("clamp"), 1.0);
        const EvalResult r = evaluate(ev, request(write(QStringLiteral("other.py"), "return torch.where(x > 0, x, 0)\n")));
        QCOMPARE(r.status, EvalStatus::InternalError);
        QVERIFY2(r.reason.contains(QLatin1String("no rule")) && r.reason.contains(QLatin1String("torch.where")), qPrintable(r.reason));
        QCOMPARE(ev.calls().first().rule, -1);
    }

    void taskRulesAndBaselines()
    {
        ScriptedEvaluator ev;
        ev.setBaseline(3.0);
        ScriptedEvaluator::Rule crash;
        crash.task = QStringLiteral("3_Matmul");
        crash.result.status = EvalStatus::Crash;
        ev.addRule(crash);
        ev.addCorrect(QStringLiteral("ModelNew"), 1.5);
        const QString code = write(QStringLiteral("copy.py"), "class ModelNew: pass\n");
        QCOMPARE(evaluate(ev, request(code, QStringLiteral(KWB_SOURCE_DIR "/tasks/level1/3_Matmul.py"))).status, EvalStatus::Crash);
        QCOMPARE(evaluate(ev, request(code)).status, EvalStatus::Ok);

        // A request without baselines (a profile job) gets none; a baseline job gets the script's.
        EvalRequest noBase = request(code);
        noBase.baselines = false;
        const EvalResult alone = evaluate(ev, noBase);
        QVERIFY(!alone.eager.isValid());
        QVERIFY(!std::isfinite(alone.speedupVsEager()));

        QSignalSpy done(&ev, &EvalBackend::evaluationFinished);
        ev.baseline(request({}));
        QVERIFY(done.wait(5000));
        const EvalResult base = done.first().at(1).value<EvalResult>();
        QCOMPARE(base.status, EvalStatus::Ok);
        QCOMPARE(base.eager.medianMs, 3.0);
        QVERIFY(!base.graph.isValid()); // the script states no CUDA graph
        QVERIFY(ev.calls().last().baseline);
    }

    void flagsMakeARunTimeIntegrityVerdict()
    {
        ScriptedEvaluator ev;
        const Verdict refused{QStringLiteral("integrity.timing_disagreement"), Outcome::Yes, Severity::Critical,
                              QStringLiteral("scripted refusal"), {}, {}};
        ev.addCorrect(QStringLiteral("clamp"), 0.01, {refused});
        Candidate c;
        c.eval = evaluate(ev, request(write(QStringLiteral("flagged.py"), "x.clamp(min=0)\n")));
        QVERIFY(c.isCorrect());
        QCOMPARE(c.eval->runtimeChecks, QList<Verdict>{refused});
        QVERIFY(c.hasIntegrityViolation());
        QVERIFY(!c.isEligibleForBest());
    }

    void answersComeFromTheEventLoopInOrder()
    {
        ScriptedEvaluator ev;
        ev.addCorrect(QStringLiteral("a"), 1.0);
        QSignalSpy started(&ev, &EvalBackend::jobStarted);
        QSignalSpy done(&ev, &EvalBackend::evaluationFinished);
        const QString code = write(QStringLiteral("a.py"), "a\n");
        const QString first = ev.evaluate(request(code));
        const QString second = ev.evaluate(request(code));
        QVERIFY(first != second);
        QCOMPARE(done.size(), 0); // never from inside evaluate()
        QTRY_COMPARE(done.size(), 2);
        QCOMPARE(done.at(0).at(0).toString(), first);
        QCOMPARE(done.at(1).at(0).toString(), second);
        QCOMPARE(started.size(), 2);
    }

    void heldEvaluationsWaitUntilReleasedOrCancelled()
    {
        ScriptedEvaluator ev;
        ev.addCorrect(QStringLiteral("a"), 1.0);
        ev.setHoldEvaluations(true);
        QSignalSpy started(&ev, &EvalBackend::jobStarted);
        QSignalSpy done(&ev, &EvalBackend::evaluationFinished);
        const QString code = write(QStringLiteral("held.py"), "a\n");
        const QString kept = ev.evaluate(request(code));
        const QString dropped = ev.evaluate(request(code));
        QTRY_COMPARE(started.size(), 2); // running, as far as anyone can tell
        QCOMPARE(ev.heldEvaluations(), 2);
        QCOMPARE(done.size(), 0);
        const QString base = ev.baseline(request({})); // baselines are not held
        QTRY_COMPARE(done.size(), 1);
        QCOMPARE(done.takeFirst().at(0).toString(), base);

        ev.cancel(dropped);
        QTRY_COMPARE(done.size(), 1);
        QCOMPARE(done.first().at(0).toString(), dropped);
        QCOMPARE(done.first().at(1).value<EvalResult>().status, EvalStatus::Cancelled);
        QVERIFY(ev.calls().at(1).cancelled);

        ev.setHoldEvaluations(false);
        QTRY_COMPARE(done.size(), 2);
        QCOMPARE(done.at(1).at(0).toString(), kept);
        QCOMPARE(done.at(1).at(1).value<EvalResult>().status, EvalStatus::Ok);
        ev.cancel(kept); // finished: nothing more comes
        QTest::qWait(0);
        QCOMPARE(done.size(), 2);
    }

    void scriptFile()
    {
        const QString path = write(QStringLiteral("script.json"), R"({
            "format": "kwb-scripted-eval",
            "baseline": {"eager_ms": 2.0, "graph_ms": 1.0},
            "candidates": [
                {"source": "relu_kernel", "status": "runtime_error", "reason": "AttributeError"},
                {"task": "3_Matmul", "status": "crash", "comment": "the worker dies"},
                {"source": "clamp", "ms": 0.5, "eager_ms": 4.0, "max_abs_err": 1e-7,
                 "flags": [{"detector": "integrity.timing_disagreement", "outcome": "yes", "severity": "critical",
                            "summary": "refused"}]}
            ]})");
        ScriptedEvaluator ev;
        QString error;
        QVERIFY2(ev.loadFile(path, &error), qPrintable(error));
        QCOMPARE(ev.ruleCount(), 3);
        QCOMPARE(ev.scriptName(), path);
        const EvalResult r = evaluate(ev, request(write(QStringLiteral("c.py"), "x.clamp(min=0)\n")));
        QCOMPARE(r.status, EvalStatus::Ok);
        QCOMPARE(r.candidate.medianMs, 0.5);
        QCOMPARE(r.speedupVsEager(), 8.0); // the rule's own eager
        QCOMPARE(r.speedupVsGraph(), 2.0);
        QCOMPARE(r.maxAbsErr, 1e-7);
        QCOMPARE(r.runtimeChecks.size(), 1);
        QVERIFY(r.runtimeChecks.first().isIntegrityViolation());
        QVERIFY(r.logTail.contains(path));
        QCOMPARE(evaluate(ev, request(write(QStringLiteral("d.py"), "x.relu_kernel()\n"))).reason, QStringLiteral("AttributeError"));
    }

    void badScriptFiles_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("says");
        QTest::newRow("not json") << QByteArray("{") << QStringLiteral("");
        QTest::newRow("no format") << QByteArray(R"({"candidates": []})") << QStringLiteral("kwb-scripted-eval");
        QTest::newRow("unknown status")
            << QByteArray(R"({"format": "kwb-scripted-eval", "candidates": [{"source": "a", "status": "fast"}]})")
            << QStringLiteral("unknown status \"fast\"");
        QTest::newRow("ok without ms") << QByteArray(R"({"format": "kwb-scripted-eval", "candidates": [{"source": "a"}]})")
                                       << QStringLiteral("needs its \"ms\"");
        QTest::newRow("matches nothing") << QByteArray(R"({"format": "kwb-scripted-eval", "candidates": [{"ms": 1}]})")
                                         << QStringLiteral("give \"source\" or \"task\"");
        QTest::newRow("typo") << QByteArray(R"({"format": "kwb-scripted-eval", "candidates": [{"source": "a", "msec": 1}]})")
                              << QStringLiteral("unknown key \"msec\"");
        QTest::newRow("negative time")
            << QByteArray(R"({"format": "kwb-scripted-eval", "candidates": [{"source": "a", "ms": -1}]})")
            << QStringLiteral("ms must be a positive number");
        QTest::newRow("top-level typo") << QByteArray(R"({"format": "kwb-scripted-eval", "candidate": []})")
                                        << QStringLiteral("unknown key \"candidate\"");
        QTest::newRow("bad baseline") << QByteArray(R"({"format": "kwb-scripted-eval", "baseline": {"eager": 1}})")
                                      << QStringLiteral("unknown key \"eager\"");
    }
    void badScriptFiles()
    {
        QFETCH(QByteArray, text);
        QFETCH(QString, says);
        ScriptedEvaluator ev;
        ev.addCorrect(QStringLiteral("kept"), 1.0);
        QString error;
        QVERIFY(!ev.loadFile(write(QStringLiteral("bad.json"), text), &error));
        QVERIFY2(error.contains(says), qPrintable(error));
        QCOMPARE(ev.ruleCount(), 1); // a bad script changes nothing
        QVERIFY(!ev.loadFile(m_tmp.filePath(QStringLiteral("missing.json")), &error));
    }
};

QTEST_GUILESS_MAIN(TestScriptedEvaluator)
#include "tst_scriptedevaluator.moc"
