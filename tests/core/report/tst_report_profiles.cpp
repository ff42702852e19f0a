// SPDX-License-Identifier: MIT
// Profiles in the reports: `kwb show`'s text and the HTML export compare each profiled candidate
// with its nearest profiled ancestor, on real H100 captures (the 39_GRU seed and showcase kernel).
#include "../../capturedprofiles.h"

#include "report/report.h"

#include <QTest>

using namespace kwb;

class TestReportProfiles : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void pairsSkipUnprofiledAncestors()
    {
        const Run run = test::gruProfiledRun();
        const auto pairs = report::profilePairs(run);
        QCOMPARE(pairs.size(), 4);
        QVERIFY(!pairs[0].before);
        QCOMPARE(pairs[0].after->id, QStringLiteral("c0002"));
        QCOMPARE(pairs[1].before->id, QStringLiteral("c0002"));
        QCOMPARE(pairs[1].after->id, QStringLiteral("c0004"));
        QCOMPARE(pairs[2].after->id, QStringLiteral("c0005"));
        QVERIFY(!pairs[3].before);
        QCOMPARE(pairs[3].after->id, QStringLiteral("c0006"));
    }

    void textTreeListsProfiles()
    {
        const QString text = report::renderTextTree(test::gruProfiledRun());
        QVERIFY2(text.contains(QStringLiteral("\nprofiles (Nsight Compute)\nc0002 seed1: memory-bound at 1.3% of peak bandwidth: DRAM ")),
                 qPrintable(text));
        QVERIFY(text.contains(QStringLiteral("(over the profiled launches only); profiled in 27.4 s\n")));
        QVERIFY(text.contains(QStringLiteral("c0004 algorithm_optimized_seed1: compute-bound at 24% of peak FP32: DRAM ")));
        QVERIFY(text.contains(QStringLiteral("c0005 seed2: not profiled: no GPU\n")));
        QVERIFY(text.contains(QStringLiteral("registers_per_thread 254")));
    }

    void htmlComparesBeforeAndAfter()
    {
        const QString html = report::renderHtml(test::gruProfiledRun());
        QVERIFY(html.contains(QStringLiteral("<h2>Profiles (Nsight Compute)</h2>")));
        QVERIFY(html.contains(QStringLiteral("<h3>c0002 seed1 → c0004 algorithm_optimized_seed1</h3>")));
        QVERIFY(html.contains(QStringLiteral("<th>metric</th><th>c0002</th><th>c0004</th><th>change</th>")));
        QVERIFY2(html.contains(QStringLiteral("<tr><td>roofline position</td><td class=\"n\">memory-bound at 1.3% of peak bandwidth</td>"
                                             "<td class=\"n\">compute-bound at 24% of peak FP32</td><td class=\"n warn\">other roof</td></tr>")),
                 qPrintable(html.mid(html.indexOf(QLatin1String("Profiles")), 3000)));
        QVERIFY(html.contains(QStringLiteral("<tr><td>kernel launches</td><td class=\"n\">≥ 64</td><td class=\"n\">2</td><td class=\"n muted\"></td></tr>")));
        QVERIFY(html.contains(QStringLiteral("<tr><td>achieved occupancy</td><td class=\"n\">6.2%</td><td class=\"n\">12.8%</td><td class=\"n ok\">+105%</td></tr>")));
        QVERIFY(html.contains(QStringLiteral("<p class=\"muted\">not profiled: no GPU</p>")));
        // A run without profiles (every run made before them) has no such section.
        Run plain = test::gruProfiledRun();
        for (auto &c : plain.candidates) {
            c.profile.reset();
            c.eval.reset();
        }
        QVERIFY(!report::renderHtml(plain).contains(QLatin1String("Profiles (Nsight Compute)")));
        QVERIFY(!report::renderTextTree(plain).contains(QLatin1String("profiles")));
    }
};

QTEST_GUILESS_MAIN(TestReportProfiles)
#include "tst_report_profiles.moc"
