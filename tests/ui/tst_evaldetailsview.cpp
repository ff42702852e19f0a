// SPDX-License-Identifier: MIT
// EvalDetailsView over a failing run written by the store and read back: one place per candidate
// with status and reason, errors against fp32 and fp64, timings with spread against both baselines,
// peak memory of candidate and reference when measured, run-time checks, profile and log tail.
#include "evaldetailsview.h"
#include "fixturerun.h"

#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>

using namespace kwb;

class TestEvalDetailsView : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_tmp;
    Run m_run;

    QString textOf(const QString &id)
    {
        const Candidate *c = m_run.candidate(id);
        if (!c)
            return {};
        EvalDetailsView view;
        view.showCandidate(c);
        return view.plainText();
    }

private slots:
    void initTestCase()
    {
        const fixture::StandardRun written = fixture::writeFailingRun(m_tmp.path());
        QString error;
        auto run = store::openRun(written.dir, &error);
        QVERIFY2(run, qPrintable(error));
        m_run = *run;
    }

    void correctCandidateShowsEverything()
    {
        const QString t = textOf(QStringLiteral("c0005"));
        QVERIFY(t.contains(QStringLiteral("correct (ok)")));
        QVERIFY(t.contains(QStringLiteral("2.2e-07"))); // max error vs fp32
        QVERIFY(t.contains(QStringLiteral("1.8e-07"))); // vs fp64
        QVERIFY(t.contains(QStringLiteral("4.23×"))); // 9.02 / 2.13 against the CUDA graph
        QVERIFY(t.contains(QStringLiteral("22.9×"))); // 48.7 / 2.13 against eager
        QVERIFY(t.contains(QStringLiteral("2.13"))); // the candidate's median
        QVERIFY(t.contains(QStringLiteral("9.02"))); // the graph baseline
        QVERIFY(t.contains(QStringLiteral("48.7"))); // the eager baseline
        QVERIFY(t.contains(QStringLiteral("281.00 MiB")));
        QVERIFY(t.contains(QStringLiteral("262.00 MiB")));
        QVERIFY(t.contains(QStringLiteral("1.07×"))); // candidate / reference memory
        QVERIFY(t.contains(QStringLiteral("fp64 reference on the device")));
        QVERIFY(t.contains(QStringLiteral("runtime.implausible_speedup")));
        QVERIFY(t.contains(QStringLiteral("runtime.cached_output")));
        // Flagged checks come first.
        QVERIFY(t.indexOf(QStringLiteral("runtime.implausible_speedup")) < t.indexOf(QStringLiteral("runtime.cached_output")));
        QVERIFY(t.contains(QStringLiteral("registers_per_thread")));
        QVERIFY(t.contains(QStringLiteral("cuda:0 NVIDIA H100 80GB HBM3")));
    }

    void failuresSayWhy()
    {
        const QString oom = textOf(QStringLiteral("c0002"));
        QVERIFY(oom.contains(QStringLiteral("harness_out_of_memory")));
        QVERIFY(oom.contains(QStringLiteral("not the candidate's fault")));
        QVERIFY(oom.contains(QStringLiteral("fp64 check chunked by 4")));
        QVERIFY(oom.contains(QStringLiteral("CUDA out of memory"))); // log tail
        QVERIFY(oom.contains(QStringLiteral("Not measured"))); // no peak memory

        const QString crash = textOf(QStringLiteral("c0003"));
        QVERIFY(crash.contains(QStringLiteral("signal 11")));
        QVERIFY(crash.contains(QStringLiteral("Segmentation fault")));

        const QString wrong = textOf(QStringLiteral("c0004"));
        QVERIFY(wrong.contains(QStringLiteral("wrong result (wrong_result)")));
        QVERIFY(wrong.contains(QStringLiteral("4.6e-01")));
        QVERIFY(wrong.contains(QStringLiteral("trial 0 failed first")));
        QVERIFY(wrong.contains(QStringLiteral("not a score"))); // its speed means nothing

        const QString compile = textOf(QStringLiteral("c0007"));
        QVERIFY(compile.contains(QStringLiteral("tl.tanh(n)")));
    }

    void speedupInsideTheSpreadIsNoise()
    {
        const QString t = textOf(QStringLiteral("c0006")); // 9.0 ± 0.1 ms against the graph's 9.02 ± 0.05
        QVERIFY(t.contains(QStringLiteral("≈1.00× (within noise)")));
        QVERIFY(!textOf(QStringLiteral("c0005")).contains(QStringLiteral("within noise")));
    }

    void noEvaluationAndNoCandidate()
    {
        Candidate pending;
        pending.id = QStringLiteral("c0099");
        pending.status = CandidateStatus::Evaluating;
        EvalDetailsView view;
        view.showCandidate(&pending);
        QVERIFY(view.plainText().contains(QStringLiteral("Not evaluated yet")));
        view.showCandidate(nullptr);
        QVERIFY(view.plainText().contains(QStringLiteral("No candidate selected")));
    }
};

QTEST_MAIN(TestEvalDetailsView)
#include "tst_evaldetailsview.moc"
