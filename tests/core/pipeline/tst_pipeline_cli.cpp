// SPDX-License-Identifier: MIT
// `kwb run` with no API key replays the shipped cassette of the task (the embedded default) and
// runs the whole pipeline on this machine's device; the run directory holds the result.
#include "store/runstore.h"

#include <QDir>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace kwb;

class TestPipelineCli : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void runWithoutKeyReplaysTheShippedCassette()
    {
        QTemporaryDir tmp;
        QProcess p;
        auto env = QProcessEnvironment::systemEnvironment();
        for (const auto &k : env.keys())
            if (k.endsWith(QLatin1String("_API_KEY")))
                env.remove(k);
        env.remove(QStringLiteral("KWB_PROVIDER"));
        env.insert(QStringLiteral("KWB_CONFIG_DIR"), tmp.filePath(QStringLiteral("config"))); // no keys.json
        env.insert(QStringLiteral("KWB_RUNS_DIR"), tmp.filePath(QStringLiteral("runs")));
        p.setProcessEnvironment(env);
        p.setWorkingDirectory(tmp.path());
        p.setProcessChannelMode(QProcess::MergedChannels);
        p.start(QStringLiteral(KWB_CLI), {QStringLiteral("run"), QStringLiteral("1_ReLU"), QStringLiteral("--device"),
                                          QStringLiteral("cpu"), QStringLiteral("--trials"), QStringLiteral("2"),
                                          QStringLiteral("--repeat"), QStringLiteral("7")});
        QVERIFY(p.waitForStarted());
        QVERIFY(p.waitForFinished(300000));
        const QString out = QString::fromUtf8(p.readAll());
        QVERIFY2(p.exitCode() == 0, qPrintable(out.right(3000)));
        QVERIFY2(out.contains(QLatin1String("replaying the shipped cassette")), qPrintable(out.left(2000)));
        QVERIFY(out.contains(QLatin1String("authored by the Kernel Workbench developers")));
        QVERIFY(out.contains(QLatin1String("call type"))); // the token table
        const QStringList runs = store::listRuns(tmp.filePath(QStringLiteral("runs")));
        QCOMPARE(runs.size(), 1);
        QString error;
        const auto run = store::openRun(runs.first(), &error);
        QVERIFY2(run, qPrintable(error));
        QCOMPARE(run->info.state, RunState::Finished);
        QCOMPARE(run->info.provider, QStringLiteral("replay"));
        const Candidate *best = run->candidate(run->info.bestCandidateId);
        QVERIFY(best);
        QVERIFY(best->isCorrect());
        // The regressing grid stage is in the tree, rejected; the best is not a stage that regressed.
        bool gridRejected = false;
        for (const auto &c : run->candidates)
            if (c.label == QLatin1String("stage_grid"))
                gridRejected = c.status == CandidateStatus::Rejected;
        QVERIFY(gridRejected);
        QVERIFY(best->status != CandidateStatus::Rejected);
        QVERIFY(out.contains(run->info.id));
    }
};

QTEST_GUILESS_MAIN(TestPipelineCli)
#include "tst_pipeline_cli.moc"
