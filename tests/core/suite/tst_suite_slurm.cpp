// SPDX-License-Identifier: MIT
// The Slurm backend against a real single-node cluster (slurm_cluster.sh: munged + slurmctld +
// slurmd, one CPU partition) started and stopped by this test: a suite through `kwb suite
// --backend slurm`, cancelling a running job (scancel), and a job lost on the cluster (killed
// from outside, twice): resubmitted once, then a clear verdict. Skips where the cluster cannot
// start (not root, Slurm or munge not installed).
#include "suitetest.h"

#include "store/runstore.h"
#include "suite/slurmevaluator.h"

#include <QSignalSpy>
#include <QTest>

using namespace kwb;

namespace {
QString clusterScript()
{
    return QStringLiteral(KWB_SOURCE_DIR "/tests/core/suite/slurm_cluster.sh");
}

QString squeueState(const QString &id)
{
    QProcess p;
    p.start(QStringLiteral("squeue"), {QStringLiteral("-h"), QStringLiteral("-t"), QStringLiteral("all"), QStringLiteral("-o"),
                                       QStringLiteral("%T"), QStringLiteral("-j"), id});
    p.waitForFinished(10000);
    return QString::fromUtf8(p.readAllStandardOutput()).trimmed();
}

bool writeHangingCandidate(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        return false;
    f.write("import torch\nimport torch.nn as nn\n\nclass ModelNew(nn.Module):\n    def forward(self, x):\n"
            "        while True:\n            pass\n");
    return true;
}
} // namespace

class TestSuiteSlurm : public QObject
{
    Q_OBJECT
    QTemporaryDir m_tmp{QStringLiteral("/tmp/kwb-slurm-XXXXXX")};
    bool m_up = false;

    /// $KWB_SLURM_TEST_DIR (ctest's cleanup test stops a cluster left there), else a temp dir.
    QString clusterDir() const
    {
        const QString d = qEnvironmentVariable("KWB_SLURM_TEST_DIR");
        return d.isEmpty() ? m_tmp.path() : d;
    }

    void stopCluster()
    {
        if (!m_up)
            return;
        QProcess::execute(QStringLiteral("/bin/bash"), {clusterScript(), QStringLiteral("stop"), clusterDir()});
        m_up = false;
    }

    EvalRequest quickRequest(const QString &task, const QString &candidate) const
    {
        EvalRequest r;
        r.taskFile = task;
        r.candidateFile = candidate;
        r.device = QStringLiteral("cpu");
        r.trials = 2;
        r.warmup = 1;
        r.repeat = 5;
        r.python = test::testPython();
        return r;
    }

    suite::SlurmSettings cpuSettings() const
    {
        suite::SlurmSettings s;
        s.gres.clear(); // a CPU partition
        s.partition = QStringLiteral("cpu");
        s.pollMs = 200;
        s.kwbBinary = QStringLiteral(KWB_CLI);
        return s;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_tmp.isValid());
        // A cluster a crashed earlier run left behind is stopped and its state removed first.
        QProcess::execute(QStringLiteral("/bin/bash"), {clusterScript(), QStringLiteral("stop"), clusterDir()});
        QDir(clusterDir()).removeRecursively();
        QVERIFY(QDir().mkpath(clusterDir()));
        QProcess p;
        p.setProcessChannelMode(QProcess::SeparateChannels);
        p.start(QStringLiteral("/bin/bash"), {clusterScript(), QStringLiteral("start"), clusterDir()});
        QVERIFY(p.waitForFinished(120000));
        const QString err = QString::fromUtf8(p.readAllStandardError()).trimmed();
        if (p.exitCode() == 77)
            QSKIP(qPrintable(QStringLiteral("no Slurm test cluster: ") + err));
        m_up = true; // stop whatever part of it started, even when start failed
        QVERIFY2(p.exitCode() == 0, qPrintable(err));
        qputenv("SLURM_CONF", QDir(clusterDir()).filePath(QStringLiteral("slurm.conf")).toLocal8Bit());
    }

    void cleanupTestCase() { stopCluster(); }

    void suiteThroughSlurm()
    {
        test::SuiteServer server;
        QTemporaryDir tmp;
        const QString suiteDir = tmp.filePath(QStringLiteral("suite"));
        QProcess p;
        auto env = server.environment(tmp.filePath(QStringLiteral("runs")));
        env.insert(QStringLiteral("SLURM_CONF"), qEnvironmentVariable("SLURM_CONF"));
        env.insert(QStringLiteral("OPENAI_API_KEY"), QStringLiteral("sk-test-never-in-a-job")); // must not reach a job
        p.setProcessEnvironment(env);
        p.setProcessChannelMode(QProcess::MergedChannels);
        p.start(QStringLiteral(KWB_CLI),
                QStringList{QStringLiteral("suite"), QStringLiteral(KWB_SOURCE_DIR "/tasks/level1/1_ReLU.py"),
                            QStringLiteral(KWB_TEST_DATA "/tasks/relu_small.py"), QStringLiteral("--jobs"), QStringLiteral("2"),
                            QStringLiteral("--backend"), QStringLiteral("slurm"), QStringLiteral("--slurm-partition"),
                            QStringLiteral("cpu"), QStringLiteral("--slurm-gres"), QStringLiteral("none"),
                            QStringLiteral("--slurm-time"), QStringLiteral("10"), QStringLiteral("--suite-dir"), suiteDir}
                    + test::quickSuiteArgs());
        QVERIFY(p.waitForStarted());
        QVERIFY(p.waitForFinished(500000));
        const QString out = QString::fromUtf8(p.readAll());
        QVERIFY2(p.exitStatus() == QProcess::NormalExit && (p.exitCode() == 0 || p.exitCode() == 1), qPrintable(out.right(4000)));
        QVERIFY(out.contains(QLatin1String("evaluations as Slurm jobs")));
        const auto s = suite::readSuite(suiteDir);
        QVERIFY(s);
        QCOMPARE(s->entries.size(), 2);
        bool allCorrect = true;
        for (const auto &e : s->entries) {
            QCOMPARE(e.state, suite::EntryState::Finished);
            // The run's log names its Slurm jobs; the candidates' results came from a job.
            const QString dir = QDir(suiteDir).filePath(e.runDir);
            const auto run = store::openRun(dir);
            QVERIFY(run);
            QFile log(QDir(dir).filePath(QStringLiteral("console.log")));
            QVERIFY(log.open(QIODevice::ReadOnly));
            const QString logText = QString::fromUtf8(log.readAll());
            QVERIFY2(logText.contains(QLatin1String("slurm job ")), qPrintable(logText.right(2000)));
            const Candidate *seed = nullptr;
            for (const auto &c : run->candidates)
                if (c.label == QLatin1String("seed1"))
                    seed = &c;
            QVERIFY(seed && seed->eval);
            QVERIFY2(seed->eval->logTail.startsWith(QLatin1String("[slurm job ")), qPrintable(seed->eval->logTail.left(200)));
            // The copy is correct on any machine; whether the real judge (`kwb eval` in the job, on a CPU
            // node shared by two jobs) also accepts its timing is the judge's own tests' business: the
            // entry's verdict and the exit code follow the run, whichever way it went.
            QVERIFY2(seed->isCorrect(), qPrintable(e.taskName + QStringLiteral(": ") + seed->eval->reason));
            QCOMPARE(e.correct, run->best() != nullptr);
            QCOMPARE(e.bestCandidateId, run->best() ? run->best()->id : QString());
            allCorrect = allCorrect && e.correct;
        }
        QCOMPARE(p.exitCode(), allCorrect ? 0 : 1);
        // The jobs' folders: no API key in any script or environment file written there.
        const QDir exchange(QDir(suiteDir).filePath(QStringLiteral("slurm")));
        QVERIFY(exchange.exists());
        const auto jobs = exchange.entryList(QDir::Dirs | QDir::NoDotAndDotDot);
        QVERIFY(jobs.size() >= 4); // at least a baseline and a candidate per task
        for (const auto &j : jobs) {
            QFile script(exchange.filePath(j + QStringLiteral("/job.sh")));
            QVERIFY(script.open(QIODevice::ReadOnly));
            QVERIFY(!script.readAll().contains("sk-test-never-in-a-job"));
        }
    }

    void cancelScancelsTheJob()
    {
        QTemporaryDir tmp;
        const QString cand = tmp.filePath(QStringLiteral("hang.py"));
        QVERIFY(writeHangingCandidate(cand));
        suite::SlurmEvaluator ev(cpuSettings(), tmp.filePath(QStringLiteral("exchange")));
        QSignalSpy started(&ev, &EvalBackend::jobStarted);
        QSignalSpy done(&ev, &EvalBackend::evaluationFinished);
        const QString job = ev.evaluate(quickRequest(QStringLiteral(KWB_TEST_DATA "/tasks/relu_small.py"), cand));
        QTRY_VERIFY_WITH_TIMEOUT(started.size() == 1, 60000);
        const QString slurmId = ev.slurmJobId(job);
        QVERIFY(!slurmId.isEmpty());
        QCOMPARE(squeueState(slurmId), QStringLiteral("RUNNING"));
        ev.cancel(job);
        QTRY_VERIFY_WITH_TIMEOUT(done.size() == 1, 10000);
        QCOMPARE(done.first().at(1).value<EvalResult>().status, EvalStatus::Cancelled);
        QTRY_VERIFY_WITH_TIMEOUT(squeueState(slurmId) == QLatin1String("CANCELLED"), 30000);
    }

    void lostJobIsRetriedOnceThenAVerdict()
    {
        QTemporaryDir tmp;
        const QString cand = tmp.filePath(QStringLiteral("hang.py"));
        QVERIFY(writeHangingCandidate(cand));
        suite::SlurmEvaluator ev(cpuSettings(), tmp.filePath(QStringLiteral("exchange")));
        QSignalSpy started(&ev, &EvalBackend::jobStarted);
        QSignalSpy notes(&ev, &EvalBackend::jobNote);
        QSignalSpy done(&ev, &EvalBackend::evaluationFinished);
        const QString job = ev.evaluate(quickRequest(QStringLiteral(KWB_TEST_DATA "/tasks/relu_small.py"), cand));
        for (int attempt = 1; attempt <= 2; ++attempt) {
            QTRY_VERIFY_WITH_TIMEOUT(started.size() == attempt, 60000);
            const QString slurmId = ev.slurmJobId(job);
            // The cluster loses the job (as a node failure or a preemption would): the job ends
            // without writing a result.
            QCOMPARE(QProcess::execute(QStringLiteral("scancel"), {slurmId}), 0);
            if (attempt == 1) {
                QTRY_VERIFY_WITH_TIMEOUT(ev.slurmJobId(job) != slurmId && !ev.slurmJobId(job).isEmpty(), 30000);
                bool resubmitted = false;
                for (const auto &n : notes)
                    resubmitted = resubmitted || n.at(1).toString().contains(QLatin1String("submitting it again"));
                QVERIFY(resubmitted);
                QCOMPARE(done.size(), 0);
            }
        }
        QTRY_VERIFY_WITH_TIMEOUT(done.size() == 1, 30000);
        const auto r = done.first().at(1).value<EvalResult>();
        QCOMPARE(r.status, EvalStatus::InternalError);
        QVERIFY2(r.reason.contains(QLatin1String("ended without a result")) && r.reason.contains(QLatin1String("(2)")),
                 qPrintable(r.reason));
    }

    void sbatchErrorsAreVerdicts()
    {
        QTemporaryDir tmp;
        auto s = cpuSettings();
        s.partition = QStringLiteral("no-such-partition");
        suite::SlurmEvaluator ev(s, tmp.filePath(QStringLiteral("exchange")));
        QSignalSpy done(&ev, &EvalBackend::evaluationFinished);
        ev.evaluate(quickRequest(QStringLiteral(KWB_TEST_DATA "/tasks/relu_small.py"), QStringLiteral(KWB_TEST_DATA "/tasks/relu_small.py")));
        QTRY_VERIFY_WITH_TIMEOUT(done.size() == 1, 30000);
        const auto r = done.first().at(1).value<EvalResult>();
        QCOMPARE(r.status, EvalStatus::InternalError);
        QVERIFY2(r.reason.startsWith(QLatin1String("sbatch refused the job")), qPrintable(r.reason));
    }
};

QTEST_GUILESS_MAIN(TestSuiteSlurm)
#include "tst_suite_slurm.moc"
