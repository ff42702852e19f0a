// SPDX-License-Identifier: MIT
// An interrupted run resumes where it stopped: after a "stop" at a gate, and after the pipeline
// was torn down in the middle of an evaluation (as a crash would leave it). Evaluations are scripted
// (pipelinetest.h): which candidate is best is the pipeline's decision, never a CPU clock's.
#include "pipelinetest.h"

#include "eval/scriptedevaluator.h"
#include "llm/llmprovider.h"
#include "pipeline/decider.h"
#include "pipeline/pipeline.h"
#include "store/runstore.h"

#include <QSignalSpy>
#include <QTest>

using namespace kwb;
using namespace kwb::pipeline;
using kwb::test::byLabel;

class TestPipelineResume : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_runs;
    test::ScriptedServer m_server;

    static QStringList labels(const Run &run)
    {
        QStringList out;
        for (const auto &c : run.candidates)
            out << c.label;
        return out;
    }

private Q_SLOTS:
    void cleanup() { test::keepIfFailed(m_runs.path()); }

    void resumeAfterStop()
    {
        QVERIFY(m_server.port() > 0);
        m_server.script(QStringLiteral("stop"),
                        {QStringLiteral("seed_loop"), QStringLiteral("analysis_yes"), QStringLiteral("fast_clamp")});
        QString error;
        auto provider = llm::createProvider(m_server.provider(QStringLiteral("stop")), &error);
        QVERIFY(provider);
        ScriptedEvaluator evaluator;
        test::scriptReluAnswers(evaluator);
        PipelineConfig cfg = test::reluConfig(m_runs.path());
        cfg.seeds = 1;
        cfg.stages = false;
        cfg.gatePolicy = GatePolicy::All;
        cfg.gatePoints = {GatePoint::BeforeLlm};
        QString dir;
        {
            Pipeline pipe(cfg, provider.get(), &evaluator);
            pipe.setDetectorHook([](const QString &, const QString &, auto done) { done({}, {}); });
            ScriptedDecider d;
            d.add(GateDecision::make(GateAction::Stop, {}, QStringLiteral("lunch")), GatePoint::BeforeLlm,
                  QStringLiteral("algorithm_analysis_seed1"));
            pipe.setDecider(&d);
            QCOMPARE(pipe.runBlocking(&error), RunState::Stopped);
            dir = pipe.runDirectory();
            QCOMPARE(labels(pipe.run()), (QStringList{"baseline", "seed1"}));
        }
        QCOMPARE(m_server.requests(QStringLiteral("stop")).size(), 1);

        PipelineConfig again;
        again.resumeDir = dir;
        again.eval = cfg.eval;
        again.seeds = 1;
        again.stages = false;
        again.scoreThreshold = cfg.scoreThreshold;
        Pipeline pipe(again, provider.get(), &evaluator);
        pipe.setDetectorHook([](const QString &, const QString &, auto done) { done({}, {}); });
        QSignalSpy added(&pipe, &Pipeline::candidateAdded);
        QCOMPARE(pipe.runBlocking(&error), RunState::Finished);
        QCOMPARE(pipe.runDirectory(), dir);
        QCOMPARE(labels(pipe.run()), (QStringList{"baseline", "seed1", "algorithm_optimized_seed1"}));
        QCOMPARE(added.size(), 1); // only the new step's candidate
        QCOMPARE(m_server.requests(QStringLiteral("stop")).size(), 3); // seed1 was not asked again
        QCOMPARE(evaluator.evaluationsOf(QStringLiteral("x[i, j:j + 64]")), 1); // nor evaluated again
        QCOMPARE(evaluator.evaluationsOf(QStringLiteral("return x.clamp(min=0.0)")), 1);
        QCOMPARE(pipe.run().gates.size(), 2); // seed1's approval and the stop, from before the resume
        QCOMPARE(pipe.run().gates.last().decision, QStringLiteral("stop"));
        QCOMPARE(pipe.run().gates.last().reason, QStringLiteral("lunch"));
        const auto reopened = store::openRun(dir, &error);
        QVERIFY(reopened);
        QCOMPARE(reopened->info.state, RunState::Finished);
        QCOMPARE(reopened->info.bestCandidateId, byLabel(*reopened, QStringLiteral("algorithm_optimized_seed1"))->id);
        QCOMPARE(reopened->info.bestCandidateId, pipe.run().info.bestCandidateId);
    }

    void resumeAfterATeardownMidEvaluation()
    {
        m_server.script(QStringLiteral("crash"), {QStringLiteral("seed_loop"), QStringLiteral("analysis_no")});
        QString error;
        auto provider = llm::createProvider(m_server.provider(QStringLiteral("crash")), &error);
        QVERIFY(provider);
        ScriptedEvaluator evaluator;
        test::scriptReluAnswers(evaluator);
        evaluator.setHoldEvaluations(true); // seed1's evaluation starts and stays running
        PipelineConfig cfg = test::reluConfig(m_runs.path());
        cfg.seeds = 1;
        cfg.stages = false;
        QString dir;
        {
            auto pipe = std::make_unique<Pipeline>(cfg, provider.get(), &evaluator);
            bool evaluating = false;
            connect(pipe.get(), &Pipeline::candidateUpdated, pipe.get(), [&](const Candidate &c) {
                if (c.label == QLatin1String("seed1") && c.status == CandidateStatus::Evaluating)
                    evaluating = true;
            });
            QVERIFY(pipe->start(&error));
            QTRY_VERIFY_WITH_TIMEOUT(evaluating && evaluator.heldEvaluations() == 1, 60000);
            dir = pipe->runDirectory();
            pipe.reset(); // gone mid-evaluation: nothing final recorded
        }
        QCOMPARE(evaluator.heldEvaluations(), 0); // the teardown cancelled it
        QVERIFY(evaluator.calls().last().cancelled);
        evaluator.setHoldEvaluations(false);
        auto before = store::openRun(dir, &error);
        QVERIFY(before);
        QCOMPARE(before->info.state, RunState::Running);
        QCOMPARE(byLabel(*before, QStringLiteral("seed1"))->status, CandidateStatus::Evaluating);

        PipelineConfig again = cfg;
        again.resumeDir = dir;
        Pipeline pipe(again, provider.get(), &evaluator);
        QCOMPARE(pipe.runBlocking(&error), RunState::Finished);
        QCOMPARE(labels(pipe.run()), (QStringList{"baseline", "seed1"}));
        QVERIFY(byLabel(pipe.run(), QStringLiteral("seed1"))->isCorrect());
        QCOMPARE(m_server.requests(QStringLiteral("crash")).size(), 2); // seed1 once, then the analysis
        QCOMPARE(evaluator.evaluationsOf(QStringLiteral("x[i, j:j + 64]")), 2); // the cancelled one, then again
        QCOMPARE(pipe.run().info.bestCandidateId, byLabel(pipe.run(), QStringLiteral("seed1"))->id);
    }
};

QTEST_GUILESS_MAIN(TestPipelineResume)
#include "tst_pipeline_resume.moc"
