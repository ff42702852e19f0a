// SPDX-License-Identifier: MIT
#include "report/report.h"
#include "store/runstore.h"

#include <QFile>
#include <QRegularExpression>
#include <QTest>

using namespace kwb;

namespace {

const QString kFixture = QStringLiteral(KWB_TEST_DATA "/report/run");

Run fixture()
{
    QString error;
    auto run = store::openRun(kFixture, &error);
    if (!run)
        qFatal("cannot open the report fixture: %s", qPrintable(error));
    return *run;
}

/// Compares with a golden file; KWB_UPDATE_GOLDEN=1 (regenerate.sh) rewrites it instead.
void compareGolden(const QString &actual, const QString &name)
{
    const QString path = QStringLiteral(KWB_TEST_DATA "/report/") + name;
    if (qEnvironmentVariableIsSet("KWB_UPDATE_GOLDEN")) {
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write(actual.toUtf8());
        qInfo("rewrote %s", qPrintable(path));
        return;
    }
    QFile f(path);
    QVERIFY2(f.open(QIODevice::ReadOnly), qPrintable("missing golden " + path + "; run tests/data/report/regenerate.sh"));
    const QStringList want = QString::fromUtf8(f.readAll()).split(u'\n');
    const QStringList got = actual.split(u'\n');
    for (qsizetype i = 0; i < std::min(want.size(), got.size()); ++i)
        if (want[i] != got[i])
            QFAIL(qPrintable(QStringLiteral("%1 drifted at line %2:\n  want: %3\n  got:  %4\n"
                                            "(intended? run tests/data/report/regenerate.sh and review the diff)")
                                 .arg(name)
                                 .arg(i + 1)
                                 .arg(want[i], got[i])));
    QCOMPARE(got.size(), want.size());
}

} // namespace

class TestReport : public QObject {
    Q_OBJECT
private slots:
    void goldenMarkdown() { compareGolden(report::renderMarkdown(fixture()), QStringLiteral("expected.md")); }
    void goldenHtml() { compareGolden(report::renderHtml(fixture()), QStringLiteral("expected.html")); }
    void treeOrderFollowsParents();
    void textTreeLines();
    void htmlIsSelfContainedAndEscaped();
    void tokenTable();
    void emptyRun();
    void deepChainAndCycle();
};

void TestReport::treeOrderFollowsParents()
{
    const Run run = fixture();
    const auto rows = report::treeOrder(run);
    QStringList got;
    for (const auto &r : rows)
        got << QStringLiteral("%1:%2").arg(r.candidate->id).arg(r.depth);
    QCOMPARE(got, (QStringList{"c0001:0", "c0005:1", "c0002:0", "c0003:1", "c0004:2", "c0006:3", "c0007:4", "c0008:4"}));
}

void TestReport::textTreeLines()
{
    const QString tree = report::renderTextTree(fixture());
    const QStringList lines = tree.split(u'\n', Qt::SkipEmptyParts);
    auto lineOf = [&](const QString &id) {
        for (const auto &l : lines)
            if (l.trimmed().startsWith(id + u' '))
                return l;
        return QString();
    };
    // Best: mark, latency ± std, both speedups (2.412 / 0.804 and 0.873 / 0.804), error, verdicts.
    const QString best = lineOf("c0006");
    QVERIFY2(best.startsWith("      c0006"), qPrintable(best));
    QVERIFY2(QRegularExpression("stage_grid +stage_grid +✓\\* +0\\.804 ± 0\\.0090 +3\\.00x +1\\.09x +2\\.9e-06 +1$")
                 .match(best)
                 .hasMatch(),
             qPrintable(best));
    QVERIFY2(lineOf("c0005").contains(QRegularExpression("  !  +0\\.212")), qPrintable(lineOf("c0005")));
    QVERIFY2(lineOf("c0003").contains("✗   compile_error"), qPrintable(lineOf("c0003")));
    QVERIFY2(lineOf("c0007").contains("…   pending"), qPrintable(lineOf("c0007")));
    QVERIFY(tree.contains("best c0006 0.804 ms (3.00x vs eager, 1.09x vs graph)"));
}

void TestReport::htmlIsSelfContainedAndEscaped()
{
    const QString html = report::renderHtml(fixture());
    QVERIFY(html.startsWith("<!DOCTYPE html>"));
    QVERIFY(html.contains("<style>"));
    QVERIFY(html.contains("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    // One file: no scripts, no linked resources, no URLs besides the SVG namespace.
    QVERIFY(!html.contains("<script", Qt::CaseInsensitive));
    QVERIFY(!html.contains(QRegularExpression("\\b(src|href)\\s*=", QRegularExpression::CaseInsensitiveOption)));
    QCOMPARE(html.count("http"), 1);
    // User text is escaped, and "%1" in a label is not treated as a placeholder.
    QVERIFY(!html.contains("<edit>"));
    QVERIFY(html.contains("manual &lt;edit&gt; | 100%1"));
    // One bar per candidate with a latency (c0001, c0005, c0002, c0004, c0006), baselines as lines.
    QCOMPARE(html.count("<rect "), 5);
    QVERIFY(html.contains(">eager 2.412</text>"));
    QVERIFY(html.contains(">graph 0.873</text>"));
    // Verdict evidence with its lines, and the integrity violation flagged.
    QVERIFY(html.contains("lines 31-34:<pre><code>if self._cache is not None:\n    return self._cache</code></pre>"));
    QVERIFY(html.contains("integrity.caching</b> <span class=\"bad\">yes, critical (integrity violation)"));
}

void TestReport::tokenTable()
{
    const QString md = report::renderMarkdown(fixture());
    QVERIFY2(md.contains("| seed2_repair1 | 2 | ~5900 | ~4000 | ~9900 | $0.0183 | 0 |"), qPrintable(md));
    QVERIFY(md.contains("| algorithm_optimized_seed1 | 1 | 3000 | 0 | 3000 | $0.0000 | 1 |"));
    QVERIFY(md.contains("| **total** | 7 | ~16410 | ~13700 | ~30110 | $0.0559 | 1 |"));
    // Markdown table cells escape pipes.
    QVERIFY(md.contains("manual &lt;edit&gt; \\| 100%1"));
}

void TestReport::emptyRun()
{
    Run run;
    run.info.id = QStringLiteral("empty");
    QVERIFY(report::renderTextTree(run).contains("(no candidates)"));
    QVERIFY(report::renderMarkdown(run).contains("No LLM calls."));
    const QString html = report::renderHtml(run);
    QVERIFY(html.contains("No candidate has a latency yet."));
    QVERIFY(html.endsWith("</html>\n"));
}

void TestReport::deepChainAndCycle()
{
    Run run;
    for (int i = 0; i < 5000; ++i) {
        Candidate c;
        c.id = QStringLiteral("c%1").arg(i);
        c.parentId = i ? QStringLiteral("c%1").arg(i - 1) : QString();
        run.candidates.append(c);
    }
    // A two-node cycle that no root reaches must still be listed once each.
    Candidate a, b;
    a.id = "a";
    a.parentId = "b";
    b.id = "b";
    b.parentId = "a";
    run.candidates << a << b;
    const auto rows = report::treeOrder(run);
    QCOMPARE(rows.size(), run.candidates.size());
    QCOMPARE(rows[4999].depth, 4999);
}

QTEST_GUILESS_MAIN(TestReport)
#include "tst_report.moc"
