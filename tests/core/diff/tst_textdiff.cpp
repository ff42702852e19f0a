// SPDX-License-Identifier: MIT
// kwb_diff against golden cases in tests/data/diff/<case>/ (left.txt, right.txt, optional
// "options", expected.txt). Regenerate with tests/data/diff/regenerate.sh and review the change.

#include "diff/textdiff.h"

#include <QDir>
#include <QFile>
#include <QTest>

using namespace kwb::diff;

namespace {

QString readAll(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QString::fromUtf8(f.readAll());
}

Options readOptions(const QString &dir)
{
    Options o;
    const QString text = readAll(dir + QStringLiteral("/options"));
    for (const QString &line : text.split(u'\n', Qt::SkipEmptyParts)) {
        const QString key = line.section(u'=', 0, 0).trimmed();
        const QString value = line.section(u'=', 1).trimmed();
        if (key == QLatin1String("ignoreLineEndings"))
            o.ignoreLineEndings = value == QLatin1String("true");
        else if (key == QLatin1String("ignoreTrailingWhitespace"))
            o.ignoreTrailingWhitespace = value == QLatin1String("true");
        else if (key == QLatin1String("intraLine"))
            o.intraLine = value == QLatin1String("char") ? Granularity::Character : Granularity::Word;
    }
    return o;
}

QString ranges(const QList<Range> &rs)
{
    QStringList parts;
    for (const Range &r : rs)
        parts << QStringLiteral("%1+%2").arg(r.start).arg(r.length);
    return parts.join(u' ');
}

/// A readable dump of everything the diff says: the golden format.
QString render(const DiffResult &d)
{
    QString s;
    s += QStringLiteral("# lines %1/%2 eol %3/%4 hunks %5 changed %6 inserted %7 deleted %8\n")
             .arg(d.leftLines.size())
             .arg(d.rightLines.size())
             .arg(d.leftEndsWithNewline)
             .arg(d.rightEndsWithNewline)
             .arg(d.hunks.size())
             .arg(d.changed)
             .arg(d.inserted)
             .arg(d.deleted);
    for (const Hunk &h : d.hunks)
        s += QStringLiteral("# hunk pairs %1+%2 left %3,%4 right %5,%6\n")
                 .arg(h.firstPair)
                 .arg(h.pairCount)
                 .arg(h.leftStart)
                 .arg(h.leftCount)
                 .arg(h.rightStart)
                 .arg(h.rightCount);
    for (const LinePair &p : d.pairs) {
        s += QStringLiteral("%1 %2 %3").arg(toName(p.kind), -6).arg(p.leftLine, 4).arg(p.rightLine, 4);
        if (p.kind == LineKind::Change)
            s += QStringLiteral(" | L[%1] R[%2]").arg(ranges(p.leftRanges), ranges(p.rightRanges));
        s += u'\n';
    }
    s += QStringLiteral("# unified\n");
    s += unifiedText(d);
    return s;
}

/// Rebuilds both texts' lines from the aligned rows: every line appears once, in order.
void checkCoverage(const DiffResult &d)
{
    int l = 0, r = 0;
    for (const LinePair &p : d.pairs) {
        if (p.leftLine) {
            QCOMPARE(p.leftLine, ++l);
        }
        if (p.rightLine) {
            QCOMPARE(p.rightLine, ++r);
        }
        QVERIFY(p.leftLine || p.rightLine);
        if (p.kind == LineKind::Equal)
            QVERIFY(p.leftLine && p.rightLine);
    }
    QCOMPARE(l, d.leftLines.size());
    QCOMPARE(r, d.rightLines.size());
}

QString kernelOfLines(int n, int variant)
{
    QString s = QStringLiteral("import torch\nimport triton\n");
    for (int i = 3; i <= n; ++i) {
        if (variant && i % 37 == 0)
            s += QStringLiteral("    acc = tl.dot(a_%1, b, acc, allow_tf32=False)  # changed\n").arg(i);
        else if (variant && i % 101 == 0)
            continue; // a deleted line
        else
            s += QStringLiteral("    acc = tl.dot(a_%1, b, acc)  # line %1\n").arg(i);
        if (variant && i % 53 == 0)
            s += QStringLiteral("    tl.debug_barrier()\n"); // an inserted line
    }
    return s;
}

} // namespace

class TestTextDiff : public QObject
{
    Q_OBJECT
private slots:
    void golden_data()
    {
        QTest::addColumn<QString>("dir");
        const QDir root(QStringLiteral(KWB_TEST_DATA "/diff"));
        const QStringList cases = root.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
        QVERIFY(cases.size() >= 10);
        for (const QString &c : cases)
            QTest::newRow(qPrintable(c)) << root.filePath(c);
    }

    void golden()
    {
        QFETCH(QString, dir);
        const QString left = readAll(dir + QStringLiteral("/left.txt"));
        const QString right = readAll(dir + QStringLiteral("/right.txt"));
        const DiffResult d = diffTexts(left, right, readOptions(dir));
        checkCoverage(d);
        const QString got = render(d);
        const QString expectedPath = dir + QStringLiteral("/expected.txt");
        if (qEnvironmentVariableIsSet("KWB_REGENERATE_GOLDEN")) {
            QFile f(expectedPath);
            QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
            f.write(got.toUtf8());
            return;
        }
        QCOMPARE(got, readAll(expectedPath));
    }

    void splitLines()
    {
        bool eol = true;
        QCOMPARE(kwb::diff::splitLines(QString(), &eol), QStringList());
        QVERIFY(!eol);
        QCOMPARE(kwb::diff::splitLines(QStringLiteral("\n"), &eol), QStringList{QString()});
        QVERIFY(eol);
        QCOMPARE(kwb::diff::splitLines(QStringLiteral("a\r\nb\rc\n\nd"), &eol),
                 (QStringList{"a", "b", "c", "", "d"}));
        QVERIFY(!eol);
    }

    void specificExpectations()
    {
        // Identical and empty texts have no hunks; CRLF against LF is identical by default only.
        QVERIFY(diffTexts(QString(), QString()).identical());
        QVERIFY(diffTexts(QStringLiteral("a\r\nb\r\n"), QStringLiteral("a\nb\n")).identical());
        Options strict;
        strict.ignoreLineEndings = false;
        QCOMPARE(diffTexts(QStringLiteral("a\r\nb\n"), QStringLiteral("a\nb\n"), strict).changed, 1);
        // A missing final newline changes the last line, with no characters marked.
        const DiffResult eol = diffTexts(QStringLiteral("a\nb"), QStringLiteral("a\nb\n"));
        QCOMPARE(eol.hunks.size(), 1);
        QCOMPARE(eol.pairs.last().kind, LineKind::Change);
        QVERIFY(eol.pairs.last().leftRanges.isEmpty());
        QVERIFY(unifiedText(eol).contains(QLatin1String("\\ No newline at end of file")));
        // Word granularity marks the whole changed identifier, character granularity only letters.
        QList<Range> l, r;
        diffLine(QStringLiteral("x = zeros(n)"), QStringLiteral("x = empty(n)"), Granularity::Word, &l, &r);
        QCOMPARE(l, (QList<Range>{{4, 5}}));
        QCOMPARE(r, (QList<Range>{{4, 5}}));
        diffLine(QStringLiteral("n = 10"), QStringLiteral("n = 100"), Granularity::Character, &l, &r);
        QVERIFY(l.isEmpty());
        QCOMPARE(r, (QList<Range>{{6, 1}}));
        // A line inserted between two edited lines does not shift the pairing of the second one.
        const DiffResult mid = diffTexts(QStringLiteral("a = load(x)\nstore(out, a + b)\n"),
                                         QStringLiteral("a = load(x, other=0)\nz = a + b\nstore(out, z)\n"));
        QCOMPARE(mid.pairs.size(), 3);
        QCOMPARE(mid.pairs.at(0).kind, LineKind::Change);
        QCOMPARE(mid.pairs.at(1).kind, LineKind::Insert);
        QCOMPARE(mid.pairs.at(2).kind, LineKind::Change);
        QCOMPARE(mid.pairs.at(2).rightLine, 3);
    }

    void thousandLineKernelsDiffWhole()
    {
        // Its speed is a figure of tests/bench/bench_ui_diff.cpp, never an assertion here.
        const QString a = kernelOfLines(1000, 0);
        const QString b = kernelOfLines(1000, 1);
        const DiffResult d = diffTexts(a, b);
        checkCoverage(d);
        QCOMPARE(d.changed, 27); // every 37th line of 3..1000
        QVERIFY(d.inserted > 0 && d.deleted > 0);
    }
};

QTEST_GUILESS_MAIN(TestTextDiff)
#include "tst_textdiff.moc"
