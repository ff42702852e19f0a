// SPDX-License-Identifier: MIT
// A run recorded against the loopback LLM server, replayed through the replay provider (from the
// run's exchanges, and from a cassette written from it): the same tree comes out. Evaluations are
// scripted (pipelinetest.h): the tree's decisions are the pipeline's, never a CPU clock's.
#include "pipelinetest.h"

#include "eval/scriptedevaluator.h"
#include "llm/llmprovider.h"
#include "llm/replayprovider.h"
#include "pipeline/cassettes.h"
#include "pipeline/decider.h"
#include "pipeline/pipeline.h"
#include "store/runstore.h"

#include <QTest>

using namespace kwb;
using namespace kwb::pipeline;
using kwb::test::byLabel;

class TestPipelineReplay : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_runs;
    test::ScriptedServer m_server;

    PipelineConfig config()
    {
        PipelineConfig cfg = test::reluConfig(m_runs.path());
        cfg.seeds = 1;
        return cfg;
    }
    static void noDetectors(Pipeline &p)
    {
        p.setDetectorHook([](const QString &, const QString &, auto done) { done({}, {}); });
    }

private Q_SLOTS:
    void cleanup() { test::keepIfFailed(m_runs.path()); }

    void replayReproducesTheTree()
    {
        QVERIFY(m_server.port() > 0);
        // seed1 fails, its repair works, the analysis asks for a rewrite, the rewrite is the best,
        // the grid stage regresses (rejected), the block stage answers without code (its repair
        // regresses too), the memory stage is not worth it (no code, repair fails the same way).
        m_server.script(QStringLiteral("rec"),
                        {QStringLiteral("seed_broken"), QStringLiteral("repair_where_loop"), QStringLiteral("analysis_yes"),
                         QStringLiteral("fast_clamp"), QStringLiteral("seed_loop"), QStringLiteral("no_code"),
                         QStringLiteral("seed_loop"), QStringLiteral("no_code"), QStringLiteral("no_code"),
                         QStringLiteral("no_code"), QStringLiteral("no_code")});
        QString error;
        auto live = llm::createProvider(m_server.provider(QStringLiteral("rec")), &error);
        QVERIFY2(live, qPrintable(error));
        ScriptedEvaluator evaluator;
        test::scriptReluAnswers(evaluator);
        Run recorded;
        {
            Pipeline pipe(config(), live.get(), &evaluator);
            noDetectors(pipe);
            QCOMPARE(pipe.runBlocking(&error), RunState::Finished);
            recorded = pipe.run();
        }
        const Candidate *best = byLabel(recorded, QStringLiteral("algorithm_optimized_seed1"));
        QVERIFY(best);
        QCOMPARE(recorded.info.bestCandidateId, best->id);
        QVERIFY(byLabel(recorded, QStringLiteral("stage_grid")));
        QCOMPARE(byLabel(recorded, QStringLiteral("stage_grid"))->parentId, best->id);
        QCOMPARE(byLabel(recorded, QStringLiteral("stage_grid"))->status, CandidateStatus::Rejected);
        QCOMPARE(byLabel(recorded, QStringLiteral("stage_block_repair1"))->status, CandidateStatus::Rejected);
        QVERIFY(byLabel(recorded, QStringLiteral("stage_memory_repair3")));
        QVERIFY(!byLabel(recorded, QStringLiteral("stage_memory_repair4"))); // maxRepairs

        // Replay from the recorded exchanges.
        llm::ProviderConfig pc;
        pc.name = QStringLiteral("replay");
        pc.wire = QStringLiteral("replay");
        pc.model = QStringLiteral("recorded");
        // Strict: with scripted figures every prompt, latencies included, is the same on the replay.
        pc.replayLenient = false;
        llm::ReplayProvider replay(pc, recorded.exchanges);
        QVERIFY2(replay.isValid(), qPrintable(replay.loadError()));
        Run replayed;
        {
            Pipeline pipe(config(), &replay, &evaluator);
            noDetectors(pipe);
            QCOMPARE(pipe.runBlocking(&error), RunState::Finished);
            replayed = pipe.run();
        }
        QCOMPARE(test::treeSignature(replayed), test::treeSignature(recorded));
        QCOMPARE(replayed.info.bestCandidateId, recorded.info.bestCandidateId);
        QVERIFY(replayed.info.id != recorded.info.id);
        QCOMPARE(replayed.exchanges.size(), recorded.exchanges.size());
        for (int i = 0; i < recorded.exchanges.size(); ++i) {
            QCOMPARE(replayed.exchanges.at(i).callType, recorded.exchanges.at(i).callType);
            QCOMPARE(replayed.exchanges.at(i).response, recorded.exchanges.at(i).response);
        }
        QCOMPARE(m_server.requests(QStringLiteral("rec")).size(), recorded.exchanges.size()); // replay made no HTTP call

        // A cassette written from the run replays the same way.
        const QString cassette = m_runs.filePath(QStringLiteral("rec.json"));
        QVERIFY2(recordCassette(recorded, {}, cassette, &error), qPrintable(error));
        const auto loaded = llm::loadCassette(cassette, &error);
        QVERIFY2(loaded, qPrintable(error));
        QCOMPARE(loaded->exchanges.size(), recorded.exchanges.size());
        QCOMPARE(loaded->metadata.value(QStringLiteral("task")).toString(), QStringLiteral("1_ReLU"));
        llm::ProviderConfig strict = pc;
        strict.replayLenient = false;
        strict.cassette = cassette;
        llm::ReplayProvider fromFile(strict);
        QVERIFY2(fromFile.isValid(), qPrintable(fromFile.loadError()));
        llm::ChatRequest seedRequest;
        seedRequest.callType = QStringLiteral("seed1");
        seedRequest.messages = recorded.exchanges.first().messages;
        llm::LlmCall *call = fromFile.send(seedRequest);
        QVERIFY(call->waitForFinished(10000));
        QVERIFY2(call->exchange().error.isEmpty(), qPrintable(call->exchange().error));
        QCOMPARE(call->exchange().response, recorded.exchanges.first().response);
    }
};

QTEST_GUILESS_MAIN(TestPipelineReplay)
#include "tst_pipeline_replay.moc"
