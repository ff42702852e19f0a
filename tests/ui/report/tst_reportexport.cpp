// SPDX-License-Identifier: MIT
// Report export: HTML with the chart embedded as a base64 PNG that decodes back, Markdown with
// the chart beside it, and a clear error for an unwritable path.

#include "chart/latencychart.h"
#include "report/reportexport.h"

#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

using namespace kwb;

namespace {

Run sampleRun()
{
    Run run;
    run.info.id = QStringLiteral("20261122-150000_1_Add");
    run.info.taskName = QStringLiteral("1_Add");
    Candidate c;
    c.id = QStringLiteral("c0001");
    c.kind = CandidateKind::Seed;
    c.status = CandidateStatus::Evaluated;
    EvalResult r;
    r.status = EvalStatus::Ok;
    r.candidate.medianMs = r.candidate.meanMs = r.candidate.minMs = r.candidate.maxMs = 2.5;
    r.candidate.stdMs = 0.1;
    r.candidate.samples = 20;
    c.eval = r;
    run.candidates = {c};
    return run;
}

QByteArray readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace

class TestReportExport : public QObject
{
    Q_OBJECT
private slots:
    void formatFromSuffix()
    {
        QCOMPARE(reportFormatForPath(QStringLiteral("/x/r.md")), ReportFormat::Markdown);
        QCOMPARE(reportFormatForPath(QStringLiteral("/x/r.MARKDOWN")), ReportFormat::Markdown);
        QCOMPARE(reportFormatForPath(QStringLiteral("/x/r.html")), ReportFormat::Html);
        QCOMPARE(reportFormatForPath(QStringLiteral("/x/r")), ReportFormat::Html);
    }

    void htmlEmbedsTheChart()
    {
        QTemporaryDir dir;
        const Run run = sampleRun();
        LatencyChart chart;
        chart.setRun(run);
        const QString path = dir.filePath(QStringLiteral("r.html"));
        QString error;
        QVERIFY2(exportReport(run, path, chart.toImage(QSize(400, 200)), &error), qPrintable(error));
        const QString html = QString::fromUtf8(readAll(path));
        QVERIFY(html.contains(QLatin1String("c0001")));
        const QRegularExpression img(QStringLiteral("src=\"data:image/png;base64,([A-Za-z0-9+/=]+)\""));
        const QRegularExpressionMatch m = img.match(html);
        QVERIFY(m.hasMatch());
        const QImage decoded = QImage::fromData(QByteArray::fromBase64(m.captured(1).toLatin1()), "PNG");
        QCOMPARE(decoded.size(), QSize(400, 200));
        const qsizetype body = html.lastIndexOf(QLatin1String("</body>"));
        if (body >= 0) // the figure sits inside the document
            QVERIFY(m.capturedStart() < body);
        // Without a chart image the report is core/report's as is.
        QVERIFY(exportReport(run, path, QImage(), &error));
        QVERIFY(!readAll(path).contains("data:image/png"));
    }

    void markdownLinksTheChart()
    {
        QTemporaryDir dir;
        const Run run = sampleRun();
        QImage image(300, 150, QImage::Format_RGB32);
        image.fill(Qt::blue);
        const QString path = dir.filePath(QStringLiteral("report.md"));
        QString error;
        QVERIFY2(exportReport(run, path, image, &error), qPrintable(error));
        const QByteArray md = readAll(path);
        QVERIFY(md.contains("c0001"));
        QVERIFY(md.contains("![Latency chart](report-latency.png)"));
        QCOMPARE(QImage(dir.filePath(QStringLiteral("report-latency.png"))).size(), QSize(300, 150));
    }

    void unwritablePath()
    {
        QString error;
        QVERIFY(!exportReport(sampleRun(), QStringLiteral("/nonexistent/dir/r.html"), QImage(), &error));
        QVERIFY(error.contains(QLatin1String("/nonexistent/dir/r.html")));
    }
};

QTEST_MAIN(TestReportExport)
#include "tst_reportexport.moc"
