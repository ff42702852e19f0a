// SPDX-License-Identifier: MIT
// Suite reports (Markdown, HTML) against golden files made from the fixture suite
// (tests/data/suite/fixture, a real `kwb suite` run); and writeSuiteReports() writing the suite's
// report plus every linked run report.
#include "suite/suitereport.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace kwb;
using namespace kwb::suite;

namespace {
const QString kData = QStringLiteral(KWB_TEST_DATA "/suite/");

Suite fixture()
{
    QString error;
    const auto s = readSuite(kData + QStringLiteral("fixture"), &error);
    if (!s)
        qFatal("fixture suite: %s", qPrintable(error));
    return *s;
}

/// Compares with a golden file; KWB_UPDATE_GOLDEN=1 (regenerate.sh) rewrites it instead.
void compareGolden(const QString &actual, const QString &name)
{
    const QString path = kData + name;
    if (qEnvironmentVariableIntValue("KWB_UPDATE_GOLDEN") == 1) {
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(actual.toUtf8());
        return;
    }
    QFile f(path);
    QVERIFY2(f.open(QIODevice::ReadOnly), qPrintable("missing golden " + path + "; run tests/data/suite/regenerate.sh"));
    const QString expected = QString::fromUtf8(f.readAll());
    QVERIFY2(actual == expected, qPrintable(QStringLiteral("%1 differs from the output (intended? run "
                                                           "tests/data/suite/regenerate.sh and review the diff)")
                                                .arg(path)));
}
} // namespace

class TestSuiteReport : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void goldenMarkdown() { compareGolden(renderSuiteMarkdown(fixture(), QStringLiteral("fixture")), QStringLiteral("expected.md")); }
    void goldenHtml() { compareGolden(renderSuiteHtml(fixture(), QStringLiteral("fixture")), QStringLiteral("expected.html")); }

    void contents()
    {
        const QString md = renderSuiteMarkdown(fixture(), QStringLiteral("fixture"));
        // Failing first, each task linked to its run report, the totals.
        QVERIFY(md.indexOf(QLatin1String("2_Softmax")) < md.indexOf(QLatin1String("1_ReLU")));
        QVERIFY(md.indexOf(QLatin1String("1_Linear_GELU_Scale")) < md.indexOf(QLatin1String("1_ReLU")));
        QVERIFY(md.contains(QLatin1String("[1_ReLU](runs/")));
        QVERIFY(md.contains(QLatin1String("/report.md)")));
        QVERIFY(md.contains(QLatin1String("Correct: 2 of 4")));
        QVERIFY(md.contains(QLatin1String("Geometric-mean speedup")));
        const QString html = renderSuiteHtml(fixture(), QStringLiteral("<b>x</b>"));
        QVERIFY(html.contains(QLatin1String("&lt;b&gt;x&lt;/b&gt;"))); // titles are escaped
        QVERIFY(!html.contains(QLatin1String("<script")));
        QVERIFY(html.contains(QLatin1String("/report.html\">1_ReLU</a>")));
    }

    void writesSuiteAndRunReports()
    {
        QTemporaryDir tmp;
        // A copy of the fixture: writing must not touch the test data.
        QProcess::execute(QStringLiteral("cp"), {QStringLiteral("-r"), kData + QStringLiteral("fixture"), tmp.path()});
        const QString dir = tmp.filePath(QStringLiteral("fixture"));
        const auto s = readSuite(dir);
        QVERIFY(s);
        QString error;
        const QStringList files = writeSuiteReports(dir, *s, &error);
        QVERIFY2(files.size() == 2, qPrintable(error));
        for (const auto &f : files)
            QVERIFY(QFile::exists(f));
        for (const auto &e : s->entries) {
            QVERIFY(QFile::exists(QDir(dir).filePath(runReportLink(e, QStringLiteral("html")))));
            QVERIFY(QFile::exists(QDir(dir).filePath(runReportLink(e, QStringLiteral("md")))));
        }
    }
};

QTEST_GUILESS_MAIN(TestSuiteReport)
#include "tst_suitereport.moc"
