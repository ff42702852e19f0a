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

        // No GPU here: the analysed seed is "profiled" once with the one-line reason, which is what
        // the analysis prompt says (not "not requested"), and what `kwb show` prints.
        const auto bodies = store::openRun(runs.first(), &error, nullptr, store::OpenOptions{.exchangeBodies = true});
        QVERIFY2(bodies, qPrintable(error));
        int analyses = 0;
        for (const auto &x : bodies->exchanges) {
            if (!x.callType.startsWith(QLatin1String("algorithm_analysis_")))
                continue;
            ++analyses;
            const QString prompt = x.messages.last().content;
            QVERIFY2(prompt.contains(QLatin1String("## Profiler metrics (Nsight Compute)\n\nnot profiled: no GPU\n")),
                     qPrintable(prompt.left(1500)));
            QVERIFY(!prompt.contains(QLatin1String("not requested")));
        }
        QCOMPARE(analyses, 2);
        const Candidate *seed = nullptr;
        for (const auto &c : run->candidates)
            if (c.label == QLatin1String("seed1"))
                seed = &c;
        QVERIFY(seed && seed->profile);
        QCOMPARE(seed->profile->note, QStringLiteral("not profiled: no GPU"));
        QCOMPARE(out.count(QStringLiteral("profile %1 (seed1): not profiled: no GPU").arg(seed->id)), 1);
        QCOMPARE(run->info.settings.value(QStringLiteral("profile")).toBool(), true);
        QProcess show;
        show.start(QStringLiteral(KWB_CLI), {QStringLiteral("show"), runs.first()});
        QVERIFY(show.waitForFinished(60000));
        const QString shown = QString::fromUtf8(show.readAllStandardOutput());
        QVERIFY2(shown.contains(QStringLiteral("profiles (Nsight Compute)\n%1 seed1: not profiled: no GPU").arg(seed->id)),
                 qPrintable(shown));
    }

    void noProfileTurnsProfilingOff()
    {
        QTemporaryDir tmp;
        QProcess p;
        auto env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("KWB_CONFIG_DIR"), tmp.filePath(QStringLiteral("config")));
        p.setProcessEnvironment(env);
        p.setProcessChannelMode(QProcess::MergedChannels);
        p.start(QStringLiteral(KWB_CLI),
                {QStringLiteral("run"), QStringLiteral("1_ReLU"), QStringLiteral("--provider"), QStringLiteral("replay"),
                 QStringLiteral("--cassette"), QStringLiteral(KWB_SOURCE_DIR "/resources/cassettes/1_ReLU.json"),
                 QStringLiteral("--lenient"), QStringLiteral("--device"), QStringLiteral("cpu"), QStringLiteral("--trials"),
                 QStringLiteral("1"), QStringLiteral("--repeat"), QStringLiteral("3"), QStringLiteral("--seeds"),
                 QStringLiteral("1"), QStringLiteral("--no-stages"), QStringLiteral("--no-profile"), QStringLiteral("--runs-dir"),
                 tmp.filePath(QStringLiteral("runs"))});
        QVERIFY(p.waitForFinished(300000));
        const QString out = QString::fromUtf8(p.readAll());
        QVERIFY2(p.exitCode() == 0, qPrintable(out.right(3000)));
        QVERIFY(!out.contains(QLatin1String("profile c0")));
        const QStringList runs = store::listRuns(tmp.filePath(QStringLiteral("runs")));
        QCOMPARE(runs.size(), 1);
        QString error;
        const auto run = store::openRun(runs.first(), &error, nullptr, store::OpenOptions{.exchangeBodies = true});
        QVERIFY2(run, qPrintable(error));
        QCOMPARE(run->info.settings.value(QStringLiteral("profile")).toBool(true), false);
        for (const auto &c : run->candidates)
            QVERIFY(!c.profile);
        bool analysed = false;
        for (const auto &x : run->exchanges)
            if (x.callType == QLatin1String("algorithm_analysis_seed1")) {
                analysed = true;
                QVERIFY(x.messages.last().content.contains(QLatin1String("not profiled: profiling is off for this run")));
            }
        QVERIFY(analysed);
    }
};

QTEST_GUILESS_MAIN(TestPipelineCli)
#include "tst_pipeline_cli.moc"
