// SPDX-License-Identifier: MIT
// DetectorRunner against the real Python detectors on corpus files (KWB_PYTHON = /usr/bin/python3).
#include "detect/detectorrunner.h"
#include "detect/policy.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace kwb;
using namespace kwb::detect;

namespace {

const QString kData = QStringLiteral(KWB_TEST_DATA "/detect");
// The shipped tasks, as the detector corpus uses them (no copies under tests/data).
const QString kTasks = QStringLiteral(KWB_SOURCE_DIR "/tasks/level3");

const Verdict *find(const QList<Verdict> &vs, const char *detector)
{
    for (const auto &v : vs)
        if (v.detector == QLatin1String(detector))
            return &v;
    return nullptr;
}

} // namespace

class TestDetectorRunner : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { qRegisterMetaType<QList<kwb::Verdict>>(); }

    void asyncBatchGridKernel()
    {
        DetectorRunner runner;
        runner.setSmCount(114);
        QSignalSpy done(&runner, &DetectorRunner::finished);
        QSignalSpy failed(&runner, &DetectorRunner::failed);
        runner.start(kTasks + "/37_LSTMCn.py", kData + "/candidates/lstm37_batch_grid.py");
        QVERIFY(runner.isRunning());
        QVERIFY(done.wait(30000));
        QCOMPARE(failed.count(), 0);
        const auto verdicts = done.first().first().value<QList<Verdict>>();
        QVERIFY(verdicts.size() >= 14);
        const Verdict *grid = find(verdicts, "grid_parallelism");
        QVERIFY(grid);
        QCOMPARE(grid->outcome, Outcome::Yes);
        bool programs = false;
        for (const auto &e : grid->evidence)
            programs = programs || e.text.contains(QStringLiteral("10 programs on 114 SMs"));
        QVERIFY(programs);
        QVERIFY(grid->evidence.first().firstLine > 0);
        const StagePlan plan = planStages(verdicts);
        QCOMPARE(plan.rule, QStringLiteral("persistent_batch_grid"));
        QVERIFY(plan.grid && !plan.block && !plan.memory);
    }

    void blockingCheat()
    {
        DetectorRunner runner;
        const DetectResult r = runner.runBlocking(kTasks + "/39_GRU.py", kData + "/candidates/cheat_nn_gru.py");
        QVERIFY2(r.ok, qPrintable(r.error));
        const Verdict *ref = find(r.verdicts, "integrity.reference_call");
        QVERIFY(ref);
        QVERIFY(ref->isIntegrityViolation());
        QVERIFY(!ref->suggestedFix.isEmpty());
    }

    void missingPythonFails()
    {
        DetectorRunner runner;
        runner.setPython(QStringLiteral("/nonexistent/python3"));
        QSignalSpy failed(&runner, &DetectorRunner::failed);
        runner.start(kTasks + "/39_GRU.py", kData + "/candidates/cheat_nn_gru.py");
        QTRY_COMPARE(failed.count(), 1);
        QVERIFY(failed.first().first().toString().contains(QStringLiteral("/nonexistent/python3")));
        const DetectResult r = runner.runBlocking(kTasks + "/39_GRU.py", kData + "/candidates/cheat_nn_gru.py");
        QVERIFY(!r.ok);
        QVERIFY(r.error.contains(QStringLiteral("cannot start")));
    }

    void missingFileIsAClearError()
    {
        DetectorRunner runner;
        const DetectResult r = runner.runBlocking(kTasks + "/39_GRU.py", kData + "/candidates/no_such_file.py");
        QVERIFY(!r.ok);
        QVERIFY2(r.error.contains(QStringLiteral("no_such_file.py")), qPrintable(r.error));
    }

    void parseOutputIsLenient()
    {
        const QByteArray chatter = "some warning\n[{\"detector\":\"triton_lint\",\"outcome\":\"yes\",\"severity\":\"error\"}]\n";
        DetectResult r = DetectorRunner::parseOutput(chatter);
        QVERIFY(r.ok);
        QCOMPARE(r.verdicts.size(), 1);
        QCOMPARE(r.verdicts.first().severity, Severity::Error);
        r = DetectorRunner::parseOutput("{\"v\":1,\"event\":\"result\",\"verdicts\":[]}");
        QVERIFY(r.ok);
        QVERIFY(!DetectorRunner::parseOutput("Traceback ...").ok);
    }
};

QTEST_GUILESS_MAIN(TestDetectorRunner)
#include "tst_detectorrunner.moc"
