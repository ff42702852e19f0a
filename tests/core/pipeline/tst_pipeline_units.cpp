// SPDX-License-Identifier: MIT
// The pipeline's small parts: gate names and policies, deciders, the stage plan, the run summary.
#include "pipeline/decider.h"
#include "pipeline/gate.h"
#include "pipeline/runsummary.h"
#include "pipeline/stagepolicy.h"

#include <QTest>

using namespace kwb;
using namespace kwb::pipeline;

class TestPipelineUnits : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void namesRoundTrip()
    {
        for (auto a : {GateAction::Approve, GateAction::EditPrompt, GateAction::EditCode, GateAction::Reprompt,
                       GateAction::Skip, GateAction::UseAsBase, GateAction::Stop, GateAction::Override})
            QCOMPARE(gateActionFromString(toName(a)), a);
        for (auto p : {GatePoint::BeforeLlm, GatePoint::AfterGeneration, GatePoint::AfterEvaluation})
            QCOMPARE(gatePointFromString(toName(p)), p);
        QCOMPARE(gatePolicyFromString(QStringLiteral("failures")), GatePolicy::Failures);
        QCOMPARE(gatePolicyFromString(QStringLiteral("auto")), GatePolicy::None);
        QVERIFY(!gatePolicyFromString(QStringLiteral("sometimes")));
    }

    void gatePolicy_data()
    {
        QTest::addColumn<int>("policy");
        QTest::addColumn<int>("point");
        QTest::addColumn<bool>("failed");
        QTest::addColumn<bool>("opens");
        QTest::newRow("none, failure") << int(GatePolicy::None) << int(GatePoint::AfterEvaluation) << true << false;
        QTest::newRow("failures, ok") << int(GatePolicy::Failures) << int(GatePoint::AfterEvaluation) << false << false;
        QTest::newRow("failures, failed") << int(GatePolicy::Failures) << int(GatePoint::AfterEvaluation) << true << true;
        QTest::newRow("failures, before llm") << int(GatePolicy::Failures) << int(GatePoint::BeforeLlm) << false << false;
        QTest::newRow("all, before llm") << int(GatePolicy::All) << int(GatePoint::BeforeLlm) << false << true;
        QTest::newRow("all, disabled point") << int(GatePolicy::All) << int(GatePoint::AfterGeneration) << false << false;
    }
    void gatePolicy()
    {
        QFETCH(int, policy);
        QFETCH(int, point);
        QFETCH(bool, failed);
        QFETCH(bool, opens);
        const QSet<GatePoint> points{GatePoint::BeforeLlm, GatePoint::AfterEvaluation};
        QCOMPARE(gateOpens(GatePolicy(policy), points, GatePoint(point), failed), opens);
    }

    void scriptedDeciderWaitsForItsGate()
    {
        ScriptedDecider d;
        d.add(GateDecision::make(GateAction::Skip), GatePoint::BeforeLlm, QStringLiteral("algorithm_analysis"));
        d.add(GateDecision::make(GateAction::Stop));
        GateRequest seed;
        seed.point = GatePoint::BeforeLlm;
        seed.step = QStringLiteral("seed1");
        GateRequest analysis = seed;
        analysis.step = QStringLiteral("algorithm_analysis_seed1");
        QList<GateAction> got;
        auto record = [&](const GateDecision &x) { got.append(x.action); };
        d.decide(seed, record); // not the gate the first entry waits for: approved
        d.decide(analysis, record);
        d.decide(seed, record);
        d.decide(seed, record); // script used up: approve
        QCOMPARE(got, (QList<GateAction>{GateAction::Approve, GateAction::Skip, GateAction::Stop, GateAction::Approve}));
        QCOMPARE(d.seen().size(), 4);
        QCOMPARE(d.remaining(), 0);
    }

    void terminalDeciderParsesAnswers()
    {
        QString input = QStringLiteral("r please use a single pass\n"
                                       "e\nline one\nline two\n.\n"
                                       "o the speedup is real, checked by hand\n"
                                       "b c0004\n"
                                       "q\n"
                                       "\n");
        QTextStream in(&input);
        QString output;
        QTextStream out(&output);
        TerminalDecider t(in, out);
        GateRequest r;
        r.point = GatePoint::AfterEvaluation;
        r.gate = QStringLiteral("after_eval:c0003");
        QList<GateDecision> got;
        for (int i = 0; i < 6; ++i)
            t.decide(r, [&](const GateDecision &d) { got.append(d); });
        QCOMPARE(got.at(0).action, GateAction::Reprompt);
        QCOMPARE(got.at(0).text, QStringLiteral("please use a single pass"));
        QCOMPARE(got.at(1).action, GateAction::EditCode);
        QCOMPARE(got.at(1).text, QStringLiteral("line one\nline two"));
        QCOMPARE(got.at(2).action, GateAction::Override);
        QCOMPARE(got.at(2).text, QStringLiteral("the speedup is real, checked by hand"));
        QCOMPARE(got.at(3).action, GateAction::UseAsBase);
        QCOMPARE(got.at(3).candidateId, QStringLiteral("c0004"));
        QCOMPARE(got.at(4).action, GateAction::Stop);
        QCOMPARE(got.at(5).action, GateAction::Approve);
        QVERIFY(output.contains(QLatin1String("after_eval:c0003")));
        r.point = GatePoint::BeforeLlm;
        QString more = QStringLiteral("e\nnew prompt\n.\n");
        QTextStream in2(&more);
        TerminalDecider t2(in2, out);
        t2.decide(r, [&](const GateDecision &d) {
            QCOMPARE(d.action, GateAction::EditPrompt);
            QCOMPARE(d.text, QStringLiteral("new prompt"));
        });
    }

    void stagePlanFollowsTheVerdicts()
    {
        const Verdict persistent{QStringLiteral("persistent_kernel"), Outcome::Yes, Severity::Info, {}, {}, {}};
        const Verdict batchOnly{QStringLiteral("grid_parallelism"), Outcome::Yes, Severity::Warning, {}, {}, {}};
        StagePlan p = planStagesFor({});
        QVERIFY(p.grid && p.block && p.memory);
        p = planStagesFor({persistent});
        QVERIFY(!p.grid && !p.block && !p.memory);
        p = planStagesFor({persistent, batchOnly});
        QVERIFY(p.grid);
        QVERIFY(!p.block && !p.memory);
    }

    void runSummaryShowsTheTree()
    {
        Run run;
        run.info.id = QStringLiteral("r1");
        run.info.taskName = QStringLiteral("1_ReLU");
        Candidate seed;
        seed.id = QStringLiteral("c0001");
        seed.label = QStringLiteral("seed1");
        seed.status = CandidateStatus::Evaluated;
        EvalResult ok;
        ok.status = EvalStatus::Ok;
        ok.candidate.medianMs = 2.0;
        ok.candidate.samples = 3;
        ok.eager.medianMs = 4.0;
        ok.eager.samples = 3;
        seed.eval = ok;
        Candidate rep = seed;
        rep.id = QStringLiteral("c0002");
        rep.parentId = seed.id;
        rep.label = QStringLiteral("seed1_repair1");
        rep.kind = CandidateKind::Repair;
        rep.eval->candidate.medianMs = 1.0;
        run.candidates = {seed, rep};
        run.info.bestCandidateId = rep.id;
        const QString text = formatRunSummary(run);
        QVERIFY(text.contains(QLatin1String("*c0002 seed1_repair1")));
        QVERIFY(text.contains(QLatin1String("4.00"))); // 4 ms eager / 1 ms
        const int seedLine = text.indexOf(QLatin1String("c0001"));
        const int repLine = text.indexOf(QLatin1String("c0002"));
        QVERIFY(seedLine > 0 && repLine > seedLine);
    }
};

QTEST_GUILESS_MAIN(TestPipelineUnits)
#include "tst_pipeline_units.moc"
