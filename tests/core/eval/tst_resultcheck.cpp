// SPDX-License-Identifier: MIT
// The host's field checks on a worker's result (core/eval/resultcheck.h): what a forged or confused
// result looks like, and that an honest one passes.
#include "eval/resultcheck.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QTest>

using namespace kwb;

namespace {

QJsonObject stats(int n, double med)
{
    return {{"median_ms", med}, {"mean_ms", med}, {"std_ms", 0.0}, {"min_ms", med * 0.9}, {"max_ms", med * 1.1},
            {"cv", 0.0}, {"samples", n}};
}

QJsonObject honest()
{
    return {{"status", "ok"},
            {"reason", "correct"},
            {"trials", 5},
            {"failing_trial", -1},
            {"max_abs_err", 1e-7},
            {"candidate", stats(20, 1.0)},
            {"eager", stats(20, 3.0)},
            {"graph", stats(20, 2.0)},
            {"runtime_checks", QJsonArray{QJsonObject{{"detector", "integrity.threads"}, {"outcome", "no"},
                                                      {"severity", "info"}}}}};
}

EvalRequest req()
{
    EvalRequest r;
    r.trials = 5;
    r.repeat = 20;
    return r;
}

} // namespace

class TestResultCheck : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void refusals_data()
    {
        QTest::addColumn<QJsonObject>("result");
        QTest::addColumn<QString>("why"); // empty: accepted
        QTest::newRow("honest") << honest() << QString();
        QJsonObject r = honest();
        r["status"] = "excellent";
        QTest::newRow("unknown status") << r << QStringLiteral("unknown status");
        r = honest();
        r["trials"] = 1;
        QTest::newRow("ok after fewer trials") << r << QStringLiteral("correctness trials");
        r = honest();
        r["candidate"] = stats(3, 0.001);
        QTest::newRow("ok with a sixth of the timed rounds") << r << QStringLiteral("timed samples");
        r = honest();
        r["candidate"] = stats(21, 1.0);
        r["eager"] = stats(21, 3.0);
        QTest::newRow("ok with more timed rounds than asked") << r << QStringLiteral("timed samples");
        r = honest();
        r["candidate"] = stats(7, 1.0);
        r["eager"] = stats(7, 3.0);
        r["graph"] = stats(7, 2.0);
        QTest::newRow("busy CPU: a third of the rounds counted, every kind alike") << r << QString();
        r = honest();
        r["candidate"] = stats(6, 1.0);
        r["eager"] = stats(6, 3.0);
        QTest::newRow("fewer than a third counted") << r << QStringLiteral("at least 7 must count");
        r = honest();
        r["candidate"] = stats(12, 1.0);
        QTest::newRow("candidate and eager over different counts") << r << QStringLiteral("eager 20");
        r = honest();
        QJsonObject s = stats(20, 1.0);
        s["min_ms"] = 5.0;
        r["candidate"] = s;
        QTest::newRow("impossible latencies") << r << QStringLiteral("impossible");
        r = honest();
        r["candidate"] = stats(20, 0.0);
        QTest::newRow("zero latency") << r << QStringLiteral("impossible");
        r = honest();
        r.remove("max_abs_err");
        QTest::newRow("ok without an error") << r << QStringLiteral("finite error");
        r = honest();
        r["failing_trial"] = 2;
        QTest::newRow("ok with a failing trial") << r << QStringLiteral("failing trial");
        r = honest();
        r["runtime_checks"] = QJsonArray{QJsonObject{{"detector", "looks.fine"}, {"outcome", "no"}, {"severity", "info"}}};
        QTest::newRow("verdict of unknown shape") << r << QStringLiteral("unknown shape");
        r = honest();
        r["status"] = "wrong_result";
        r["trials"] = 1;
        r["candidate"] = stats(0, 0);
        QTest::newRow("a failure needs no timings") << r << QString();
    }
    void refusals()
    {
        QFETCH(QJsonObject, result);
        QFETCH(QString, why);
        const QString got = refuseResult(result, req(), false);
        if (why.isEmpty())
            QVERIFY2(got.isEmpty(), qPrintable(got));
        else
            QVERIFY2(got.contains(why), qPrintable(got));
    }
    void judgesOwnCount()
    {
        // repeat 0: the worker runs its own count (AutoRoundsMin-AutoRoundsMax rounds on a CPU), and counts as few as a
        // third of the fewest on a busy machine; nothing beyond the most.
        EvalRequest q = req();
        q.repeat = 0;
        for (const int n : {AutoRoundsMin / 3, 20, AutoRoundsMax}) {
            QJsonObject r = honest();
            r["candidate"] = stats(n, 1.0);
            r["eager"] = stats(n, 3.0);
            const QString got = refuseResult(r, q, false);
            QVERIFY2(got.isEmpty(), qPrintable(QString::number(n) + QStringLiteral(": ") + got));
        }
        for (const int n : {AutoRoundsMin / 3 - 1, AutoRoundsMax + 1}) {
            QJsonObject r = honest();
            r["candidate"] = stats(n, 1.0);
            r["eager"] = stats(n, 3.0);
            const QString got = refuseResult(r, q, false);
            QVERIFY2(got.contains(QStringLiteral("the judge's count")), qPrintable(QString::number(n) + QStringLiteral(": ") + got));
        }
    }
    void baselineOnlyNeedsNoCandidate()
    {
        QJsonObject r = honest();
        r.remove("candidate");
        QVERIFY(refuseResult(r, req(), true).isEmpty());
        QVERIFY(!refuseResult(r, req(), false).isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestResultCheck)
#include "tst_resultcheck.moc"
