// SPDX-License-Identifier: MIT
// LatencyChart offscreen: one bar per evaluated candidate, baselines and best-so-far from the run,
// a click on a bar emits candidateClicked, PNG and SVG exports are real images.

#include "chart/latencychart.h"

#include <QCheckBox>
#include <QFile>
#include <QImage>
#include <QSet>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace kwb;

namespace {

LatencyStats lat(double median, double sd)
{
    LatencyStats s;
    s.medianMs = s.meanMs = median;
    s.stdMs = sd;
    s.minMs = median - 2 * sd;
    s.maxMs = median + 3 * sd;
    s.samples = 20;
    return s;
}

Candidate cand(const QString &id, CandidateKind kind, std::optional<EvalStatus> status, double ms = 0)
{
    Candidate c;
    c.id = id;
    c.kind = kind;
    if (status) {
        c.status = CandidateStatus::Evaluated;
        EvalResult r;
        r.status = *status;
        r.eager = lat(48.7, 2.0);
        r.graph = lat(9.0, 0.1);
        if (ms > 0)
            r.candidate = lat(ms, ms / 20);
        c.eval = r;
    }
    return c;
}

/// seed (compile error) → repair 30 ms → algo-opt 10 ms → stage (wrong, 12 ms) → pending → seed2 60 ms.
Run sampleRun()
{
    Run run;
    run.info.taskName = QStringLiteral("39_GRU");
    run.candidates = {cand("c1", CandidateKind::Seed, EvalStatus::CompileError),
                      cand("c2", CandidateKind::Repair, EvalStatus::Ok, 30),
                      cand("c3", CandidateKind::AlgoOpt, EvalStatus::Ok, 10),
                      cand("c4", CandidateKind::StageGrid, EvalStatus::WrongResult, 12),
                      cand("c5", CandidateKind::StageBlock, std::nullopt),
                      cand("c6", CandidateKind::Seed, EvalStatus::Ok, 60)};
    return run;
}

int distinctColours(const QImage &img)
{
    QSet<QRgb> colours;
    for (int y = 0; y < img.height(); y += 3)
        for (int x = 0; x < img.width(); x += 3)
            colours.insert(img.pixel(x, y));
    return static_cast<int>(colours.size());
}

} // namespace

class TestLatencyChart : public QObject
{
    Q_OBJECT
private slots:
    void barsFromRun()
    {
        const Run run = sampleRun();
        const QList<LatencyChart::Bar> bars = LatencyChart::barsOf(run);
        QCOMPARE(bars.size(), 4); // evaluated with a latency: c2, c3, c4, c6
        QCOMPARE(bars.at(1).id, QStringLiteral("c3"));
        QVERIFY(bars.at(1).eligible);
        QVERIFY(!bars.at(2).eligible); // wrong result
        QCOMPARE(bars.at(1).maxMs, 10 + 3 * 0.5);
        QCOMPARE(LatencyChart::eagerBaselineMs(run), 48.7);
        QCOMPARE(LatencyChart::graphBaselineMs(run), 9.0);
        const QList<double> best = LatencyChart::bestSoFar(bars);
        QCOMPARE(best, (QList<double>{30, 10, 10, 10}));
        QVERIFY(std::isnan(LatencyChart::eagerBaselineMs(Run())));

        LatencyChart chart;
        chart.setRun(run);
        QCOMPARE(chart.barCount(), 4);
        QCOMPARE(chart.candidateIds(), (QStringList{"c2", "c3", "c4", "c6"}));
        chart.setRun(Run());
        QCOMPARE(chart.barCount(), 0);
    }

    void clickingABarEmitsItsCandidate()
    {
        LatencyChart chart;
        chart.resize(800, 500);
        chart.setRun(sampleRun());
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        QSignalSpy spy(&chart, &LatencyChart::candidateClicked);
        for (int i : {3, 1}) {
            const QPoint at = chart.barCenter(i).toPoint();
            QVERIFY(chart.viewWidget()->rect().contains(at));
            QTest::mouseClick(chart.viewWidget(), Qt::LeftButton, {}, at);
        }
        QTRY_COMPARE(spy.size(), 2);
        QCOMPARE(spy.at(0).at(0).toString(), QStringLiteral("c6"));
        QCOMPARE(spy.at(1).at(0).toString(), QStringLiteral("c3"));
    }

    void logAxisWhenTheRangePasses10x()
    {
        // 30, 10, 12, 60 ms and baselines 48.7 / 9: a 6.7x span stays linear.
        LatencyChart chart;
        chart.resize(900, 420);
        chart.setRun(sampleRun());
        QVERIFY(!chart.isLogScale());
        QCOMPARE(chart.axisTitle(), QStringLiteral("ms"));
        // A 2 ms kernel beside 60 ms seeds: on a linear axis an invisible sliver; the axis turns logarithmic.
        Run run = sampleRun();
        run.candidates.append(cand("c7", CandidateKind::AlgoOpt, EvalStatus::Ok, 2.0));
        chart.setRun(run);
        QVERIFY(chart.isLogScale());
        QCOMPARE(chart.scale(), LatencyChart::Scale::Auto);
        QCOMPARE(chart.axisTitle(), QStringLiteral("ms (log)"));
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        // The toggle overrides the automatic choice, and a new run keeps the choice.
        auto *toggle = chart.findChild<QCheckBox *>(QStringLiteral("latencyLogScale"));
        QVERIFY(toggle && toggle->isVisible());
        QVERIFY(toggle->isChecked());
        QTest::mouseClick(toggle, Qt::LeftButton);
        QVERIFY(!chart.isLogScale());
        QCOMPARE(chart.scale(), LatencyChart::Scale::Linear);
        chart.setRun(run);
        QVERIFY(!chart.isLogScale());
        QTest::mouseClick(toggle, Qt::LeftButton);
        QVERIFY(chart.isLogScale());
        QVERIFY(!LatencyChart::wantsLogScale(9, 60) && LatencyChart::wantsLogScale(2, 60));

        // The smallest bar is still a bar a click finds, on the log axis.
        QSignalSpy spy(&chart, &LatencyChart::candidateClicked);
        const QPoint at = chart.barCenter(4).toPoint();
        QVERIFY(chart.viewWidget()->rect().contains(at));
        QTest::mouseClick(chart.viewWidget(), Qt::LeftButton, {}, at);
        QTRY_COMPARE(spy.size(), 1);
        QCOMPARE(spy.at(0).at(0).toString(), QStringLiteral("c7"));
    }

    void barsCarryValueAndSpeedup()
    {
        Run run = sampleRun();
        run.candidates.append(cand("c7", CandidateKind::AlgoOpt, EvalStatus::Ok, 2.0));
        LatencyChart chart;
        chart.resize(1000, 420);
        chart.setRun(run);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        const QStringList labels = chart.barLabels();
        QCOMPARE(labels.size(), chart.barCount());
        // c2 30 ms: 9 / 30 against the graph; c4 is wrong: no speedup, its status; c7 2 ms: 4.5x.
        QCOMPARE(labels.at(0), QStringLiteral("30 ms\n0.30× graph"));
        QCOMPARE(labels.at(2), QStringLiteral("12 ms\nwrong result"));
        QCOMPARE(labels.at(4), QStringLiteral("2 ms\n4.50× graph"));
        const QList<LatencyChart::Bar> bars = LatencyChart::barsOf(run);
        QCOMPARE(bars.at(1).speedup, QStringLiteral("0.90× graph"));
        // Without a graph baseline (CPU), the speedup is against eager.
        Run cpu = run;
        for (Candidate &c : cpu.candidates)
            if (c.eval)
                c.eval->graph = LatencyStats();
        QCOMPARE(LatencyChart::barsOf(cpu).at(4).speedup, QStringLiteral("24.4× eager"));
        QVERIFY(std::isnan(LatencyChart::graphBaselineMs(cpu)));
        // A chart too narrow for its labels drops them rather than piling them up.
        chart.resize(160, 420);
        QTRY_VERIFY(chart.barLabels().count(QString()) > 0);
    }

    void exportsPngAndSvg()
    {
        QTemporaryDir dir;
        LatencyChart chart; // never shown: the export lays the chart out itself
        chart.setRun(sampleRun());
        const QString png = dir.filePath(QStringLiteral("chart.png"));
        const QString svg = dir.filePath(QStringLiteral("chart.svg"));
        QString error;
        QVERIFY2(chart.savePng(png, QSize(900, 450), &error), qPrintable(error));
        QVERIFY2(chart.saveSvg(svg, QSize(900, 450), &error), qPrintable(error));
        const QImage img(png);
        QCOMPARE(img.size(), QSize(900, 450));
        QVERIFY(distinctColours(img) > 20); // bars, lines, text: not a blank canvas
        QFile f(svg);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray text = f.readAll();
        QVERIFY(text.contains("<svg"));
        QVERIFY(text.contains("<path") || text.contains("<rect") || text.contains("<polyline"));
        QVERIFY(text.size() > 2000);
        if (!qEnvironmentVariableIsEmpty("KWB_CHART_SNAPSHOT")) // to look at it: KWB_CHART_SNAPSHOT=/tmp/x.png
            QVERIFY(chart.savePng(qEnvironmentVariable("KWB_CHART_SNAPSHOT")));
        QVERIFY(!chart.savePng(dir.filePath(QStringLiteral("missing/dir/chart.png")), QSize(100, 100), &error));
        QVERIFY(!error.isEmpty());
    }
};

QTEST_MAIN(TestLatencyChart)
#include "tst_latencychart.moc"
