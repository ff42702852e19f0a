// SPDX-License-Identifier: MIT
// Gates driven by a scripted decider against the loopback LLM server, the scripted evaluator
// (pipelinetest.h) and the real store: edit the prompt, re-prompt in the same conversation, edit the
// code, skip, use another base, stop.
#include "pipelinetest.h"

#include "eval/scriptedevaluator.h"
#include "llm/llmprovider.h"
#include "pipeline/decider.h"
#include "pipeline/pipeline.h"
#include "prompts/extraction.h"
#include "store/runstore.h"

#include <QSignalSpy>
#include <QTest>
#include <QTimer>

using namespace kwb;
using namespace kwb::pipeline;
using kwb::test::byLabel;

class TestPipelineGates : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_runs;
    test::ScriptedServer m_server;

private Q_SLOTS:
    void cleanup() { test::keepIfFailed(m_runs.path()); }

    void everyKindOfDecision()
    {
        QVERIFY(m_server.port() > 0);
        m_server.script(QStringLiteral("gates"),
                        {QStringLiteral("seed_broken"), QStringLiteral("repair_where_loop"), QStringLiteral("seed_loop")});
        QString error;
        auto provider = llm::createProvider(m_server.provider(QStringLiteral("gates")), &error);
        QVERIFY2(provider, qPrintable(error));
        ScriptedEvaluator evaluator;
        test::scriptReluAnswers(evaluator);
        PipelineConfig cfg = test::reluConfig(m_runs.path());
        cfg.seeds = 1;
        cfg.scoreThreshold = 1000.0; // the edited seed (20x) is analysed too: its analysis gate is in the script
        cfg.gatePolicy = GatePolicy::All;
        Pipeline pipe(cfg, provider.get(), &evaluator);
        pipe.setDetectorHook([](const QString &, const QString &, auto done) { done({}, {}); });

        const QString fastCode = prompts::extractCode(test::readText(test::pipelineData(QStringLiteral("fast_clamp")))).code;
        QVERIFY(!fastCode.isEmpty());
        ScriptedDecider d;
        using P = GatePoint;
        d.add(GateDecision::make(GateAction::EditPrompt, QStringLiteral("EDITED PROMPT: write ModelNew for ReLU."),
                                 QStringLiteral("shorter prompt")),
              P::BeforeLlm, QStringLiteral("seed1"));
        d.add(GateDecision::approve(), P::AfterGeneration, QStringLiteral("seed1"));
        d.add(GateDecision::make(GateAction::Reprompt, QStringLiteral("relu_kernel does not exist; use tensor ops."),
                                 QStringLiteral("hint")),
              P::AfterEvaluation, QStringLiteral("seed1"));
        d.add(GateDecision::approve(), P::AfterGeneration, QStringLiteral("seed1_reprompt1"));
        d.add(GateDecision::make(GateAction::EditCode, fastCode, QStringLiteral("one pass is enough")), P::AfterEvaluation,
              QStringLiteral("seed1_reprompt1"));
        d.add(GateDecision::approve(), P::AfterEvaluation, QStringLiteral("seed1_reprompt1_edit1"));
        d.add(GateDecision::make(GateAction::Skip, {}, QStringLiteral("no analysis needed")), P::BeforeLlm,
              QStringLiteral("algorithm_analysis_seed1"));
        d.add(
            [&pipe](const GateRequest &) {
                GateDecision b = GateDecision::make(GateAction::UseAsBase, {}, QStringLiteral("try the re-prompted one"));
                b.candidateId = byLabel(pipe.run(), QStringLiteral("seed1_reprompt1"))->id;
                return b;
            },
            P::BeforeLlm, QStringLiteral("stage_grid"));
        d.add(GateDecision::make(GateAction::Skip, {}, QStringLiteral("not this one")), P::AfterGeneration,
              QStringLiteral("stage_grid"));
        d.add(GateDecision::make(GateAction::Stop, {}, QStringLiteral("enough")), P::BeforeLlm, QStringLiteral("stage_block"));
        pipe.setDecider(&d);
        QSignalSpy opened(&pipe, &Pipeline::gateOpened);
        const RunState state = pipe.runBlocking(&error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(state, RunState::Stopped);
        QCOMPARE(d.remaining(), 0);
        const Run &run = pipe.run();

        // The tree: the seed, its re-prompt (same conversation), the manual edit, the skipped stage.
        const Candidate *seed = byLabel(run, QStringLiteral("seed1"));
        const Candidate *re = byLabel(run, QStringLiteral("seed1_reprompt1"));
        const Candidate *edit = byLabel(run, QStringLiteral("seed1_reprompt1_edit1"));
        const Candidate *grid = byLabel(run, QStringLiteral("stage_grid"));
        QVERIFY(seed && re && edit && grid);
        QCOMPARE(seed->eval->status, EvalStatus::RuntimeError);
        QCOMPARE(re->kind, CandidateKind::Reprompt);
        QCOMPARE(re->parentId, seed->id);
        QVERIFY(re->isCorrect());
        QCOMPARE(edit->kind, CandidateKind::ManualEdit);
        QCOMPARE(edit->parentId, re->id);
        QVERIFY(edit->isCorrect());
        QCOMPARE(store::readCode(pipe.runDirectory(), *edit).trimmed(), fastCode.trimmed());
        QCOMPARE(grid->status, CandidateStatus::Rejected);
        QVERIFY(!grid->eval); // skipped before evaluation
        QVERIFY(!byLabel(run, QStringLiteral("seed1_repair1"))); // the gates' answers replaced the repair
        QVERIFY(!byLabel(run, QStringLiteral("stage_block")));

        // The conversations the server saw.
        const auto reqs = m_server.requests(QStringLiteral("gates"));
        QCOMPARE(reqs.size(), 3);
        const QJsonArray first = reqs.at(0).value(QStringLiteral("messages")).toArray();
        QCOMPARE(first.last().toObject().value(QStringLiteral("content")).toString(),
                 QStringLiteral("EDITED PROMPT: write ModelNew for ReLU."));
        const QJsonArray second = reqs.at(1).value(QStringLiteral("messages")).toArray();
        QCOMPARE(second.size(), first.size() + 2);
        QCOMPARE(second.at(second.size() - 2).toObject().value(QStringLiteral("role")).toString(), QStringLiteral("assistant"));
        QVERIFY(second.at(second.size() - 2).toObject().value(QStringLiteral("content")).toString().contains(QLatin1String("relu_kernel")));
        QCOMPARE(second.last().toObject().value(QStringLiteral("content")).toString(),
                 QStringLiteral("relu_kernel does not exist; use tensor ops."));
        // The stage prompt was built on the best (the manual edit); the next stage's gate showed the chosen base.
        const QJsonArray third = reqs.at(2).value(QStringLiteral("messages")).toArray();
        QVERIFY(third.last().toObject().value(QStringLiteral("content")).toString().contains(QLatin1String("clamp(min=0.0)")));
        const GateRequest last = opened.last().first().value<GateRequest>();
        QCOMPARE(last.step, QStringLiteral("stage_block"));
        QCOMPARE(last.baseId, re->id);

        // Every decision is recorded, with its reason, in order; the run directory agrees.
        QStringList decisions;
        for (const auto &g : run.gates)
            decisions << g.decision;
        // (the re-prompt's own call passes a before-LLM gate too: approved, unscripted)
        QCOMPARE(decisions, (QStringList{"edit_prompt", "approve", "reprompt", "approve", "approve", "edit_code", "approve",
                                         "skip", "use_as_base", "skip", "stop"}));
        QCOMPARE(run.gates.at(3).gate, QStringLiteral("before_llm:seed1_reprompt1"));
        QCOMPARE(run.gates.at(5).reason, QStringLiteral("one pass is enough"));
        QCOMPARE(run.gates.at(8).candidateId, re->id);
        QString err;
        const auto reopened = store::openRun(pipe.runDirectory(), &err);
        QVERIFY2(reopened, qPrintable(err));
        QCOMPARE(reopened->gates, run.gates);
        QCOMPARE(reopened->info.state, RunState::Stopped);
        QCOMPARE(reopened->info.bestCandidateId, edit->id);
    }

    void failuresPolicyOpensOnlyOnFailures()
    {
        m_server.script(QStringLiteral("fail"), {QStringLiteral("seed_broken"), QStringLiteral("seed_loop")});
        QString error;
        auto provider = llm::createProvider(m_server.provider(QStringLiteral("fail")), &error);
        QVERIFY(provider);
        ScriptedEvaluator evaluator;
        test::scriptReluAnswers(evaluator);
        PipelineConfig cfg = test::reluConfig(m_runs.path());
        cfg.seeds = 1;
        cfg.maxRepairs = 1;
        cfg.scoreThreshold = 0.0; // no analysis
        cfg.stages = false;
        cfg.gatePolicy = GatePolicy::Failures;
        Pipeline pipe(cfg, provider.get(), &evaluator);
        pipe.setDetectorHook([](const QString &, const QString &, auto done) { done({}, {}); });
        // No decider: answer through the signal and the slot, as the GUI does.
        QList<GateRequest> seen;
        connect(&pipe, &Pipeline::gateOpened, &pipe, [&](const GateRequest &r) {
            seen.append(r);
            QVERIFY(pipe.openGate());
            QTimer::singleShot(0, &pipe, [&pipe] { pipe.submitDecision(GateDecision::approve()); });
        });
        QCOMPARE(pipe.runBlocking(&error), RunState::Finished);
        QCOMPARE(seen.size(), 1);
        QCOMPARE(seen.first().point, GatePoint::AfterEvaluation);
        QVERIFY(seen.first().failed);
        QVERIFY(seen.first().eval);
        QCOMPARE(seen.first().eval->status, EvalStatus::RuntimeError);
        QVERIFY(byLabel(pipe.run(), QStringLiteral("seed1_repair1"))->isCorrect());
    }
};

QTEST_GUILESS_MAIN(TestPipelineGates)
#include "tst_pipeline_gates.moc"
