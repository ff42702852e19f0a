// SPDX-License-Identifier: MIT
#include "model/json.h"

#include <QTest>

using namespace kwb;

class TestModelJson : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void candidateRoundTrip()
    {
        Candidate c;
        c.id = "c0002";
        c.parentId = "c0001";
        c.kind = CandidateKind::Repair;
        c.label = "seed1_repair1";
        c.codeFile = "kernels/c0002.py";
        c.status = CandidateStatus::Evaluated;
        EvalResult r;
        r.status = EvalStatus::WrongResult;
        r.maxAbsErr = 0.32;
        r.failingTrial = 2;
        r.candidate.medianMs = 3.5;
        r.candidate.samples = 20;
        r.eager.medianMs = 48.7;
        r.eager.samples = 20;
        r.profile.insert("registers_per_thread", 128);
        c.eval = r;
        c.verdicts.append({"persistent_kernel", Outcome::Yes, Severity::Info, "time loop in kernel",
                           {{41, 88, "loop over seq_len"}}, "keep it"});
        const Candidate back = json::candidateFromJson(json::toJson(c));
        QCOMPARE(back.id, c.id);
        QCOMPARE(back.kind, CandidateKind::Repair);
        QCOMPARE(back.status, CandidateStatus::Evaluated);
        QVERIFY(back.eval.has_value());
        QCOMPARE(back.eval->status, EvalStatus::WrongResult);
        QCOMPARE(back.eval->failingTrial, 2);
        QCOMPARE(back.eval->maxAbsErr, 0.32);
        QVERIFY(std::isnan(back.eval->meanAbsErr)); // NaN survives as null
        QCOMPARE(back.eval->profile.value("registers_per_thread"), 128.0);
        QVERIFY(back.verdicts == c.verdicts);
        QVERIFY(back.eval->runnable());
        QVERIFY(!back.isCorrect());
    }

    void bestSkipsIntegrityViolationsUnlessOverridden()
    {
        Run run;
        auto make = [](QString id, double ms) {
            Candidate c;
            c.id = id;
            EvalResult r;
            r.status = EvalStatus::Ok;
            r.candidate.medianMs = ms;
            r.candidate.samples = 5;
            c.eval = r;
            return c;
        };
        run.candidates = {make("a", 5.0), make("b", 1.0)};
        run.candidates[1].verdicts.append(
            {"integrity.reference_call", Outcome::Yes, Severity::Critical, "calls nn.GRU", {}, {}});
        QCOMPARE(run.best()->id, QString("a"));
        run.candidates[1].overrideReason = "reviewed: the GRU call is in dead code";
        QCOMPARE(run.best()->id, QString("b"));
    }

    void unknownEnumNamesFallBack()
    {
        QCOMPARE(evalStatusFromString("nonsense"), EvalStatus::InternalError);
        QVERIFY(!candidateKindFromString("nonsense").has_value());
        for (auto s : {EvalStatus::Ok, EvalStatus::Crash, EvalStatus::RunTimeout, EvalStatus::NoGpu})
            QCOMPARE(evalStatusFromString(toName(s)), s);
    }
};

QTEST_GUILESS_MAIN(TestModelJson)
#include "tst_modeljson.moc"
