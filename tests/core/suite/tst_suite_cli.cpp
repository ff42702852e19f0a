// SPDX-License-Identifier: MIT
// `kwb suite` as a user runs it: real tasks (tasks/level1, a test task), the real pipeline, a real
// loopback LLM server; one task broken, one crashing, one whose LLM stalls. Then a real `kwb suite`
// killed with SIGKILL mid-way and resumed, and one stopped with Ctrl-C. The evaluations are scripted
// ($KWB_SCRIPTED_EVAL, tests/data/suite/scripted_eval.json): every state and verdict asserted here
// is the suite's own decision, the same on any machine (the real worker has its own tests).
#include "suitetest.h"
#include "../../keptruns.h"

#include "store/runstore.h"

#include <QTest>

#include <memory>

#include <csignal>

using namespace kwb;

class TestSuiteCli : public QObject
{
    Q_OBJECT
    std::unique_ptr<QTemporaryDir> m_tmp; ///< each test's suites and runs; kept when it fails
    static QProcessEnvironment scripted(const test::SuiteServer &server, const QString &runsDir)
    {
        auto env = server.environment(runsDir);
        env.insert(QStringLiteral("KWB_SCRIPTED_EVAL"), test::suiteEvalScript());
        return env;
    }

private Q_SLOTS:
    void init() { m_tmp = std::make_unique<QTemporaryDir>(); }
    void cleanup()
    {
        test::keepIfFailed(m_tmp->path());
        m_tmp.reset();
    }

    void suiteOfSmallTasksWithFailures()
    {
        // Softmax: every answer is broken (no correct candidate); Matmul: the candidate kills its
        // worker; Linear_GELU_Scale: the LLM never answers (the suite's task limit aborts that run);
        // ReLU and the test task: correct. The task limit only has to stop the stalled task (before the fake
        // provider's own 60 s idle limit would): alone the others finish in seconds, on a loaded 2-core
        // machine (ctest -j 2, three jobs here) in well under its 50 s, so they do not race it (a softmax
        // run once lost that race at 25 s).
        test::SuiteServer server(QJsonObject{{"torch.softmax", "broken"}, {"torch.matmul", "crash"}, {"F.gelu", "stall"}});
        QVERIFY(server.port() > 0);
        QTemporaryDir &tmp = *m_tmp;
        const QString suiteDir = tmp.filePath(QStringLiteral("suite"));
        QProcess p;
        p.setProcessEnvironment(scripted(server, tmp.filePath(QStringLiteral("runs"))));
        p.setProcessChannelMode(QProcess::MergedChannels);
        p.start(QStringLiteral(KWB_CLI), QStringList{QStringLiteral("suite"), QStringLiteral(KWB_SOURCE_DIR "/tasks/level1"),
                                                     QStringLiteral(KWB_SOURCE_DIR "/tasks/level2"),
                                                     QStringLiteral(KWB_TEST_DATA "/tasks/relu_small.py"),
                                                     QStringLiteral("--jobs"), QStringLiteral("3"),
                                                     QStringLiteral("--task-timeout"), QStringLiteral("50"),
                                                     QStringLiteral("--suite-dir"), suiteDir}
                                             + test::quickSuiteArgs());
        QVERIFY(p.waitForStarted());
        QVERIFY(p.waitForFinished(400000));
        const QString out = QString::fromUtf8(p.readAll());
        QVERIFY2(p.exitCode() == 1, qPrintable(out.right(4000))); // some tasks fail: exit code 1

        QString error;
        const auto s = suite::readSuite(suiteDir, &error);
        QVERIFY2(s, qPrintable(error));
        QCOMPARE(s->entries.size(), 5);
        const auto *relu = test::entryNamed(*s, QStringLiteral("1_ReLU"));
        const auto *small = test::entryNamed(*s, QStringLiteral("relu_small"));
        const auto *softmax = test::entryNamed(*s, QStringLiteral("2_Softmax"));
        const auto *matmul = test::entryNamed(*s, QStringLiteral("3_Matmul"));
        const auto *gelu = test::entryNamed(*s, QStringLiteral("1_Linear_GELU_Scale"));
        QVERIFY(relu && small && softmax && matmul && gelu);
        QVERIFY2(out.contains(QLatin1String("evaluations SCRIPTED by")), qPrintable(out.left(1000)));
        for (const auto *e : {relu, small}) {
            QCOMPARE(e->state, suite::EntryState::Finished);
            QVERIFY2(e->correct, qPrintable(e->taskName + QStringLiteral(": ") + e->failureReason));
            QCOMPARE(e->speedupVsEager, 2.0); // the script's 1 ms eager over its 0.5 ms copy
            QVERIFY(!e->bestCandidateId.isEmpty());
            QVERIFY(e->tokens > 0);
            QCOMPARE(e->level, e == relu ? 1 : 0);
            // The run directory is the existing run format, finished, with the same best.
            const auto run = store::openRun(QDir(suiteDir).filePath(e->runDir), &error);
            QVERIFY2(run, qPrintable(error));
            QCOMPARE(run->info.state, RunState::Finished);
            QCOMPARE(run->info.bestCandidateId, e->bestCandidateId);
        }
        QCOMPARE(softmax->state, suite::EntryState::Finished);
        QVERIFY(!softmax->correct);
        QVERIFY(softmax->failing());
        QCOMPARE(softmax->failureReason, QStringLiteral("no correct candidate"));
        QCOMPARE(matmul->state, suite::EntryState::Finished);
        QVERIFY(!matmul->correct);
        QCOMPARE(gelu->state, suite::EntryState::Failed);
        QVERIFY2(gelu->failureReason.contains(QLatin1String("time limit")), qPrintable(gelu->failureReason));
        QCOMPARE(gelu->level, 2);
        // The crashed candidate is the candidate's verdict, not the suite's end.
        const auto mrun = store::openRun(QDir(suiteDir).filePath(matmul->runDir), &error);
        QVERIFY2(mrun, qPrintable(error));
        bool crashed = false;
        for (const auto &c : mrun->candidates)
            crashed = crashed || (c.eval && c.eval->status == EvalStatus::Crash);
        QVERIFY(crashed);

        // The terminal: one line per state change with the live count, the final table failing first.
        QVERIFY2(out.contains(QLatin1String("1_ReLU: running")), qPrintable(out.left(3000)));
        QVERIFY(out.contains(QLatin1String("done, ")));
        const int table = out.indexOf(QLatin1String("\ntask "));
        QVERIFY(table > 0);
        const QString tail = out.mid(table);
        QVERIFY(tail.indexOf(QLatin1String("3_Matmul")) < tail.indexOf(QLatin1String("1_ReLU")));
        QVERIFY(tail.indexOf(QLatin1String("1_Linear_GELU_Scale")) < tail.indexOf(QLatin1String("1_ReLU")));
        QVERIFY(tail.indexOf(QLatin1String("2_Softmax")) < tail.indexOf(QLatin1String("1_ReLU")));
        QVERIFY(tail.contains(QLatin1String("5 tasks: 2 correct")));
    }

    void resumeAfterSigkill()
    {
        // A slow LLM (300 ms per answer) and one run at a time: kill while the second task runs.
        test::SuiteServer server({}, 300);
        QTemporaryDir &tmp = *m_tmp;
        const QString suiteDir = tmp.filePath(QStringLiteral("suite"));
        const QStringList tasks{QStringLiteral(KWB_SOURCE_DIR "/tasks/level1/1_ReLU.py"),
                                QStringLiteral(KWB_TEST_DATA "/tasks/relu_small.py"),
                                QStringLiteral(KWB_SOURCE_DIR "/tasks/level1/2_Softmax.py")};
        QProcess p;
        p.setProcessEnvironment(scripted(server, tmp.filePath(QStringLiteral("runs"))));
        p.setProcessChannelMode(QProcess::MergedChannels);
        p.start(QStringLiteral(KWB_CLI), QStringList{QStringLiteral("suite")} + tasks
                                             + QStringList{QStringLiteral("--jobs"), QStringLiteral("1"),
                                                           QStringLiteral("--suite-dir"), suiteDir}
                                             + test::quickSuiteArgs());
        QVERIFY(p.waitForStarted());
        auto stateOf = [&](int i) {
            const auto s = suite::readSuite(suiteDir);
            return s && s->entries.size() > i ? s->entries.at(i).state : suite::EntryState::Pending;
        };
        QTRY_VERIFY_WITH_TIMEOUT(stateOf(1) == suite::EntryState::Running || p.state() == QProcess::NotRunning, 300000);
        QCOMPARE(stateOf(0), suite::EntryState::Finished);
        ::kill(pid_t(p.processId()), SIGKILL);
        QVERIFY(p.waitForFinished(10000));
        QCOMPARE(p.exitStatus(), QProcess::CrashExit);
        const auto killed = suite::readSuite(suiteDir);
        QVERIFY(killed);
        const QString firstRun = killed->entries.at(0).runDir;
        const QString secondRun = killed->entries.at(1).runDir;
        QVERIFY(!secondRun.isEmpty());

        QProcess r;
        r.setProcessEnvironment(scripted(server, tmp.filePath(QStringLiteral("runs"))));
        r.setProcessChannelMode(QProcess::MergedChannels);
        r.start(QStringLiteral(KWB_CLI), {QStringLiteral("suite"), QStringLiteral("--resume"), suiteDir});
        QVERIFY(r.waitForStarted());
        QVERIFY(r.waitForFinished(400000));
        const QString out = QString::fromUtf8(r.readAll());
        QVERIFY2(r.exitCode() == 0, qPrintable(out.right(4000)));
        const auto s = suite::readSuite(suiteDir);
        QVERIFY(s);
        QCOMPARE(s->entries.size(), 3);
        for (const auto &e : s->entries) {
            QCOMPARE(e.state, suite::EntryState::Finished);
            QVERIFY2(e.correct, qPrintable(e.taskName + QStringLiteral(": ") + e.failureReason));
        }
        // The finished task was not redone; the interrupted one continued in its own run directory.
        QCOMPARE(s->entries.at(0).attempts, 1);
        QCOMPARE(s->entries.at(0).runDir, firstRun);
        QCOMPARE(s->entries.at(1).attempts, 2);
        QCOMPARE(s->entries.at(1).runDir, secondRun);
        QCOMPARE(s->entries.at(2).attempts, 1);
        QCOMPARE(store::listRuns(QDir(suiteDir).filePath(QStringLiteral("runs"))).size(), 3);
        QVERIFY(!out.contains(QLatin1String("1_ReLU: running")));
    }

    void ctrlCStopsAfterTheCurrentStepAndResumes()
    {
        test::SuiteServer server({}, 300);
        QTemporaryDir &tmp = *m_tmp;
        const QString suiteDir = tmp.filePath(QStringLiteral("suite"));
        QProcess p;
        p.setProcessEnvironment(scripted(server, tmp.filePath(QStringLiteral("runs"))));
        p.setProcessChannelMode(QProcess::MergedChannels);
        p.start(QStringLiteral(KWB_CLI), QStringList{QStringLiteral("suite"), QStringLiteral(KWB_SOURCE_DIR "/tasks/level1/1_ReLU.py"),
                                                     QStringLiteral(KWB_TEST_DATA "/tasks/relu_small.py"),
                                                     QStringLiteral("--jobs"), QStringLiteral("1"), QStringLiteral("--suite-dir"), suiteDir}
                                             + test::quickSuiteArgs());
        QVERIFY(p.waitForStarted());
        auto stateOf = [&](int i) {
            const auto s = suite::readSuite(suiteDir);
            return s && s->entries.size() > i ? s->entries.at(i).state : suite::EntryState::Pending;
        };
        QTRY_VERIFY_WITH_TIMEOUT(stateOf(0) == suite::EntryState::Running, 60000);
        ::kill(pid_t(p.processId()), SIGINT);
        QVERIFY(p.waitForFinished(120000));
        const QString out = QString::fromUtf8(p.readAll());
        QVERIFY2(p.exitStatus() == QProcess::NormalExit && p.exitCode() == 130, qPrintable(out.right(3000)));
        QVERIFY(out.contains(QLatin1String("stopping")));
        QVERIFY(stateOf(0) == suite::EntryState::Stopped || stateOf(0) == suite::EntryState::Finished);
        QCOMPARE(stateOf(1), suite::EntryState::Pending); // not started after the stop

        QProcess r;
        r.setProcessEnvironment(scripted(server, tmp.filePath(QStringLiteral("runs"))));
        r.start(QStringLiteral(KWB_CLI), {QStringLiteral("suite"), QStringLiteral("--resume"), suiteDir});
        QVERIFY(r.waitForFinished(300000));
        QCOMPARE(r.exitCode(), 0);
        QCOMPARE(stateOf(0), suite::EntryState::Finished);
        QCOMPARE(stateOf(1), suite::EntryState::Finished);
    }
};

QTEST_GUILESS_MAIN(TestSuiteCli)
#include "tst_suite_cli.moc"
