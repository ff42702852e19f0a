// SPDX-License-Identifier: MIT
// `kwb run` with no API key replays the shipped cassette of the task (the embedded default) and
// runs the whole pipeline; the run directory holds the result. The tests that assert the pipeline's
// decisions (which seeds are analysed, which stage regressed, which candidate is best) run `kwb run`
// with $KWB_SCRIPTED_EVAL (tests/data/pipeline/scripted/1_ReLU_cassette.json states each candidate's
// figures); one short run goes through the real worker and asserts only what holds on any machine.
#include "store/runstore.h"
#include "../../keptruns.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace kwb;

namespace {
const char *kScript = KWB_TEST_DATA "/pipeline/scripted/1_ReLU_cassette.json";

const Candidate *labelled(const Run &run, const QString &label)
{
    for (const auto &c : run.candidates)
        if (c.label == label)
            return &c;
    return nullptr;
}
} // namespace

class TestPipelineCli : public QObject
{
    Q_OBJECT
    std::unique_ptr<QTemporaryDir> m_tmp; ///< each test's runs; kept when it fails
private Q_SLOTS:
    void init() { m_tmp = std::make_unique<QTemporaryDir>(); }
    void cleanup()
    {
        test::keepIfFailed(m_tmp->path());
        m_tmp.reset();
    }

    void runWithoutKeyReplaysTheShippedCassette()
    {
        QTemporaryDir &tmp = *m_tmp;
        QProcess p;
        auto env = QProcessEnvironment::systemEnvironment();
        for (const auto &k : env.keys())
            if (k.endsWith(QLatin1String("_API_KEY")))
                env.remove(k);
        env.remove(QStringLiteral("KWB_PROVIDER"));
        env.insert(QStringLiteral("KWB_CONFIG_DIR"), tmp.filePath(QStringLiteral("config"))); // no keys.json
        env.insert(QStringLiteral("KWB_RUNS_DIR"), tmp.filePath(QStringLiteral("runs")));
        env.insert(QStringLiteral("KWB_SCRIPTED_EVAL"), QString::fromLatin1(kScript));
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
        QVERIFY2(out.startsWith(QStringLiteral("evaluations SCRIPTED by %1").arg(QString::fromLatin1(kScript))),
                 qPrintable(out.left(2000)));
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
        // The cassette's story with the script's figures: the grid stage (3 ms) and the block stage's
        // repair (1 ms) regress against the one-pass rewrite (0.2 ms), kept and rejected; the memory
        // stage (0.19 ms) improves on it and is the best.
        const Candidate *best = run->candidate(run->info.bestCandidateId);
        QVERIFY(best);
        QCOMPARE(best->label, QStringLiteral("stage_memory"));
        QCOMPARE(best->parentId, labelled(*run, QStringLiteral("algorithm_optimized_seed1"))->id);
        QCOMPARE(best->status, CandidateStatus::Evaluated);
        QCOMPARE(best->eval->device, QStringLiteral("scripted (nothing ran)"));
        QCOMPARE(labelled(*run, QStringLiteral("stage_grid"))->status, CandidateStatus::Rejected);
        QCOMPARE(labelled(*run, QStringLiteral("stage_block"))->eval->status, EvalStatus::WrongResult);
        QCOMPARE(labelled(*run, QStringLiteral("stage_block_repair1"))->status, CandidateStatus::Rejected);
        QCOMPARE(labelled(*run, QStringLiteral("seed2"))->eval->status, EvalStatus::RuntimeError);
        QVERIFY(labelled(*run, QStringLiteral("algorithm_optimized_seed2"))->isCorrect());
        QVERIFY(out.contains(run->info.id));
        QVERIFY2(out.contains(QStringLiteral("best: %1 (stage_memory) 0.190 ms, 2.63x vs eager").arg(best->id)),
                 qPrintable(out.right(3000)));

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
        const Candidate *seed = labelled(*run, QStringLiteral("seed1"));
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
        QTemporaryDir &tmp = *m_tmp;
        QProcess p;
        auto env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("KWB_CONFIG_DIR"), tmp.filePath(QStringLiteral("config")));
        env.insert(QStringLiteral("KWB_SCRIPTED_EVAL"), QString::fromLatin1(kScript)); // seed1 at 0.1x: analysed
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

    void aBadScriptStopsTheRunBeforeItStarts()
    {
        QTemporaryDir &tmp = *m_tmp;
        QFile bad(tmp.filePath(QStringLiteral("bad.json")));
        QVERIFY(bad.open(QIODevice::WriteOnly));
        bad.write(R"({"format": "kwb-scripted-eval", "candidates": [{"source": "clamp", "status": "fast"}]})");
        bad.close();
        QProcess p;
        auto env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("KWB_CONFIG_DIR"), tmp.filePath(QStringLiteral("config")));
        env.insert(QStringLiteral("KWB_SCRIPTED_EVAL"), bad.fileName());
        p.setProcessEnvironment(env);
        p.start(QStringLiteral(KWB_CLI), {QStringLiteral("run"), QStringLiteral("1_ReLU"), QStringLiteral("--runs-dir"),
                                          tmp.filePath(QStringLiteral("runs"))});
        QVERIFY(p.waitForFinished(60000));
        const QString errText = QString::fromUtf8(p.readAllStandardError());
        QCOMPARE(p.exitCode(), 3); // InputError
        QVERIFY2(errText.contains(QLatin1String("$KWB_SCRIPTED_EVAL")) && errText.contains(QLatin1String("unknown status \"fast\"")),
                 qPrintable(errText));
        QVERIFY(store::listRuns(tmp.filePath(QStringLiteral("runs"))).isEmpty());
    }

    void runThroughTheRealWorker()
    {
        // Without $KWB_SCRIPTED_EVAL the candidates run: one seed, no analysis, no stages, and only what
        // holds on any machine (the seed is correct and was measured on this CPU; no figure decides).
        QTemporaryDir &tmp = *m_tmp;
        QProcess p;
        auto env = QProcessEnvironment::systemEnvironment();
        env.remove(QStringLiteral("KWB_SCRIPTED_EVAL"));
        env.insert(QStringLiteral("KWB_CONFIG_DIR"), tmp.filePath(QStringLiteral("config")));
        p.setProcessEnvironment(env);
        p.setProcessChannelMode(QProcess::MergedChannels);
        p.start(QStringLiteral(KWB_CLI),
                {QStringLiteral("run"), QStringLiteral("1_ReLU"), QStringLiteral("--provider"), QStringLiteral("replay"),
                 QStringLiteral("--device"), QStringLiteral("cpu"), QStringLiteral("--trials"), QStringLiteral("1"),
                 QStringLiteral("--repeat"), QStringLiteral("3"), QStringLiteral("--seeds"), QStringLiteral("1"),
                 QStringLiteral("--threshold"), QStringLiteral("0"), QStringLiteral("--no-stages"),
                 QStringLiteral("--no-profile"), QStringLiteral("--runs-dir"), tmp.filePath(QStringLiteral("runs"))});
        QVERIFY(p.waitForFinished(300000));
        const QString out = QString::fromUtf8(p.readAll());
        QVERIFY2(p.exitCode() == 0, qPrintable(out.right(3000)));
        QVERIFY(!out.contains(QLatin1String("SCRIPTED")));
        const QStringList runs = store::listRuns(tmp.filePath(QStringLiteral("runs")));
        QCOMPARE(runs.size(), 1);
        QString error;
        const auto run = store::openRun(runs.first(), &error);
        QVERIFY2(run, qPrintable(error));
        QCOMPARE(run->info.state, RunState::Finished);
        const Candidate *seed = labelled(*run, QStringLiteral("seed1"));
        QVERIFY(seed && seed->eval);
        QVERIFY2(seed->isCorrect(), qPrintable(seed->eval->reason));
        QCOMPARE(seed->eval->device, QStringLiteral("cpu"));
        QVERIFY(seed->eval->candidate.isValid() && seed->eval->candidate.medianMs > 0);
        QStringList labels;
        for (const auto &c : run->candidates)
            labels << c.label;
        QCOMPARE(labels, (QStringList{"baseline", "seed1"}));
    }
};

QTEST_GUILESS_MAIN(TestPipelineCli)
#include "tst_pipeline_cli.moc"
