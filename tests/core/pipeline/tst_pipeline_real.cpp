// SPDX-License-Identifier: MIT
// The one end-to-end run of the whole pipeline through the REAL worker (torch on CPU) on the bundled
// 1_ReLU task, with the loopback LLM server's scripted answers and the real run store. It asserts
// what holds on any machine: the tree's shape (labels, kinds, parents), each candidate's status
// (correct, failing the way its code fails), figures that are positive and consistent, and a best
// that is the fastest eligible candidate by the figures the run recorded. It never asserts which
// timing won: which candidate is best, and which stage regressed, are tst_pipeline_e2e's (scripted).
#include "pipelinetest.h"

#include "eval/evaluator.h"
#include "llm/llmprovider.h"
#include "pipeline/pipeline.h"
#include "store/runstore.h"

#include <QTest>

#include <cmath>

using namespace kwb;
using namespace kwb::pipeline;
using kwb::test::byLabel;

class TestPipelineReal : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_runs;
    test::ScriptedServer m_server;

    static bool consistent(const LatencyStats &s)
    {
        return s.isValid() && s.medianMs > 0 && std::isfinite(s.minMs) && std::isfinite(s.maxMs) && s.minMs > 0
            && s.minMs <= s.medianMs && s.medianMs <= s.maxMs;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_runs.isValid());
        QVERIFY2(m_server.port() > 0, "the scripted LLM server did not start");
    }
    void cleanup() { test::keepIfFailed(m_runs.path()); }

    void wholePipelineThroughTheRealWorker()
    {
        // Call order: seed1, seed2, seed2_repair1, analysis seed1, optimized seed1, analysis seed2,
        // stage_grid, stage_block, stage_block_repair1, stage_memory, stage_memory_repair1.
        m_server.script(QStringLiteral("real"),
                        {QStringLiteral("seed_loop"), QStringLiteral("seed_broken"), QStringLiteral("repair_where_loop"),
                         QStringLiteral("analysis_yes"), QStringLiteral("fast_clamp"), QStringLiteral("analysis_no"),
                         QStringLiteral("seed_loop"), QStringLiteral("wrong"), QStringLiteral("seed_loop"),
                         QStringLiteral("no_code"), QStringLiteral("repair_where_loop")});
        QString error;
        auto provider = llm::createProvider(m_server.provider(QStringLiteral("real")), &error);
        QVERIFY2(provider, qPrintable(error));
        Evaluator evaluator;
        PipelineConfig cfg = test::reluConfig(m_runs.path());
        // Every seed is analysed, whatever the CPU's speedup says (no machine makes 1e9x).
        cfg.scoreThreshold = 1e9;
        // The judge's run-time integrity rules stay out of this run: on a CPU they may refuse an
        // honest microsecond kernel now and then (the judge's own tests, tests/python/test_timing_*
        // and test_worker_*, hold it to its rules), and with every correct candidate refused there
        // would be no best and no stages, a shape no machine should decide.
        cfg.eval.integrity = false;
        Pipeline pipe(cfg, provider.get(), &evaluator);
        pipe.setDetectorHook([](const QString &, const QString &, auto done) { done({}, {}); });
        QCOMPARE(pipe.runBlocking(&error), RunState::Finished);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        const Run &run = pipe.run();

        // The tree's shape.
        QStringList labels;
        for (const auto &c : run.candidates)
            labels << c.label;
        QCOMPARE(labels, (QStringList{"baseline", "seed1", "seed2", "seed2_repair1", "algorithm_optimized_seed1",
                                      "stage_grid", "stage_block", "stage_block_repair1", "stage_memory",
                                      "stage_memory_repair1"}));
        auto at = [&](const char *label) { return byLabel(run, QString::fromLatin1(label)); };
        QCOMPARE(at("seed2_repair1")->kind, CandidateKind::Repair);
        QCOMPARE(at("seed2_repair1")->parentId, at("seed2")->id);
        QCOMPARE(at("algorithm_optimized_seed1")->kind, CandidateKind::AlgoOpt);
        QCOMPARE(at("algorithm_optimized_seed1")->parentId, at("seed1")->id);
        QCOMPARE(at("stage_grid")->kind, CandidateKind::StageGrid);
        QCOMPARE(at("stage_block")->kind, CandidateKind::StageBlock);
        QCOMPARE(at("stage_memory")->kind, CandidateKind::StageMemory);
        QCOMPARE(at("stage_block_repair1")->parentId, at("stage_block")->id);
        QCOMPARE(at("stage_memory_repair1")->parentId, at("stage_memory")->id);
        for (const char *stage : {"stage_grid", "stage_block", "stage_memory"}) {
            const Candidate *base = run.candidate(at(stage)->parentId);
            QVERIFY2(base && base->isEligibleForBest(), stage); // a stage builds on a correct candidate
        }

        // What the real worker said of each: correctness and failures do not depend on the machine.
        QCOMPARE(at("baseline")->eval->status, EvalStatus::Ok);
        QCOMPARE(at("baseline")->eval->device, QStringLiteral("cpu"));
        QVERIFY(consistent(at("baseline")->eval->eager));
        QCOMPARE(at("seed2")->eval->status, EvalStatus::RuntimeError);
        QVERIFY2(at("seed2")->eval->reason.contains(QLatin1String("relu_kernel")), qPrintable(at("seed2")->eval->reason));
        QCOMPARE(at("stage_block")->eval->status, EvalStatus::WrongResult);
        QCOMPARE(at("stage_memory")->eval->status, EvalStatus::SyntaxError);
        for (const char *correct : {"seed1", "seed2_repair1", "algorithm_optimized_seed1", "stage_grid",
                                    "stage_block_repair1", "stage_memory_repair1"}) {
            const Candidate *c = at(correct);
            QVERIFY2(c->isCorrect(), qPrintable(QStringLiteral("%1: %2").arg(c->label, c->eval->reason)));
            QVERIFY2(consistent(c->eval->candidate) && consistent(c->eval->eager), correct);
            QVERIFY(c->eval->maxAbsErr <= c->eval->atol);
            QVERIFY(c->eval->speedupVsEager() > 0);
        }
        // A stage is kept or rejected, and a rejected one says why.
        for (const char *stage : {"stage_grid", "stage_block_repair1", "stage_memory_repair1"}) {
            const Candidate *c = at(stage);
            QVERIFY(c->status == CandidateStatus::Evaluated || c->status == CandidateStatus::Rejected);
            if (c->status == CandidateStatus::Rejected)
                QVERIFY2(c->note.contains(QLatin1String("regressed")), qPrintable(c->note));
        }

        // The best: eligible, not rejected, and the fastest such by the figures recorded (whichever it is).
        const Candidate *best = run.candidate(run.info.bestCandidateId);
        QVERIFY(best);
        QVERIFY(best->isEligibleForBest());
        QVERIFY(best->status != CandidateStatus::Rejected);
        for (const auto &c : run.candidates)
            if (c.kind != CandidateKind::Baseline && c.isEligibleForBest() && c.status != CandidateStatus::Rejected)
                QVERIFY2(best->eval->candidate.medianMs <= c.eval->candidate.medianMs, qPrintable(c.label));

        // The run directory holds the same thing.
        QString err;
        const auto reopened = store::openRun(pipe.runDirectory(), &err);
        QVERIFY2(reopened, qPrintable(err));
        QCOMPARE(test::treeSignature(*reopened), test::treeSignature(run));
        QCOMPARE(reopened->info.state, RunState::Finished);
        QCOMPARE(reopened->info.bestCandidateId, run.info.bestCandidateId);
        QCOMPARE(reopened->exchanges.size(), 11);
        QCOMPARE(m_server.requests(QStringLiteral("real")).size(), 11);
    }
};

QTEST_GUILESS_MAIN(TestPipelineReal)
#include "tst_pipeline_real.moc"
