// SPDX-License-Identifier: MIT
// DiffView offscreen: alignment, markers and changed-character boxes, next/previous change (API
// and shortcuts) in both modes, candidate pickers and quick picks, prompt diffs.

#include "diff/diffview.h"

#include <Qsci/qsciscintilla.h>

#include <QComboBox>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTest>

using namespace kwb;

namespace {

/// 60 lines with three separated edits: a change at line 5, an insertion after 30, a deletion of 50.
QPair<QString, QString> threeHunks()
{
    QString a, b;
    for (int i = 1; i <= 60; ++i) {
        const QString line = QStringLiteral("    x%1 = tl.load(p + %1)\n").arg(i);
        a += line;
        if (i == 5)
            b += QStringLiteral("    x5 = tl.load(q + 5)\n");
        else if (i != 50)
            b += line;
        if (i == 30)
            b += QStringLiteral("    tl.debug_barrier()\n");
    }
    return {a, b};
}

bool hasMarker(QsciScintilla *e, int row, int marker)
{
    return e->markersAtLine(row) & (1u << marker);
}

int indicatorAt(QsciScintilla *e, int row, int column)
{
    const long pos = e->positionFromLineIndex(row, column);
    return static_cast<int>(e->SendScintilla(QsciScintillaBase::SCI_INDICATORVALUEAT, DiffView::ChangeIndicator, pos));
}

Candidate cand(const QString &id, const QString &parent, CandidateKind kind)
{
    Candidate c;
    c.id = id;
    c.parentId = parent;
    c.kind = kind;
    c.label = id + QStringLiteral("_label");
    return c;
}

} // namespace

class TestDiffView : public QObject
{
    Q_OBJECT
private slots:
    void sideBySideAlignsAndMarks()
    {
        DiffView v;
        const auto [a, b] = threeHunks();
        v.compareTexts(QStringLiteral("a"), a, QStringLiteral("b"), b);
        const diff::DiffResult &d = v.result();
        QCOMPARE(v.changeCount(), 3);
        QCOMPARE(d.changed, 1);
        QCOMPARE(d.inserted, 1);
        QCOMPARE(d.deleted, 1);
        // Both sides have one row per pair (fillers included), so they scroll together.
        QCOMPARE(v.leftEditor()->lines(), d.pairs.size());
        QCOMPARE(v.rightEditor()->lines(), d.pairs.size());
        // Row 4 is the changed line 5: tinted on both sides, "p" → "q" boxed at column 17.
        QVERIFY(hasMarker(v.leftEditor(), 4, DiffView::ChangedLeftMarker));
        QVERIFY(hasMarker(v.rightEditor(), 4, DiffView::ChangedRightMarker));
        QCOMPARE(indicatorAt(v.rightEditor(), 4, 17), 1);
        QCOMPARE(indicatorAt(v.rightEditor(), 4, 4), 0);
        // The inserted row is a filler on the left.
        const int ins = v.hunkRow(1);
        QVERIFY(hasMarker(v.rightEditor(), ins, DiffView::AddedMarker));
        QVERIFY(hasMarker(v.leftEditor(), ins, DiffView::FillerMarker));
        QVERIFY(v.leftEditor()->text(ins).trimmed().isEmpty());
        QCOMPARE(v.rightEditor()->text(ins).trimmed(), QStringLiteral("tl.debug_barrier()"));
        const int del = v.hunkRow(2);
        QVERIFY(hasMarker(v.leftEditor(), del, DiffView::RemovedMarker));
        QVERIFY(hasMarker(v.rightEditor(), del, DiffView::FillerMarker));
    }

    void nextPreviousMovesBetweenHunks()
    {
        DiffView v;
        v.resize(700, 200); // fewer rows than the file: moving must scroll
        v.show();
        QVERIFY(QTest::qWaitForWindowExposed(&v));
        const auto [a, b] = threeHunks();
        QSignalSpy spy(&v, &DiffView::changeNavigated);
        v.compareTexts(QStringLiteral("a"), a, QStringLiteral("b"), b);
        QCOMPARE(v.currentChange(), 0); // a new diff opens at its first change
        QVERIFY(!v.previousChange());
        QVERIFY(v.nextChange());
        QCOMPARE(v.currentChange(), 1);
        int line = -1, index = -1;
        v.leftEditor()->getCursorPosition(&line, &index);
        QCOMPARE(line, v.hunkRow(1));
        QVERIFY(hasMarker(v.rightEditor(), v.hunkRow(1), DiffView::CurrentMarker));
        QVERIFY(!hasMarker(v.rightEditor(), v.hunkRow(0), DiffView::CurrentMarker));
        // The hunk is on screen, with the other side scrolled along.
        const int first = v.leftEditor()->firstVisibleLine();
        QVERIFY(first <= v.hunkRow(1) && v.hunkRow(1) < first + v.leftEditor()->SendScintilla(QsciScintillaBase::SCI_LINESONSCREEN));
        QCOMPARE(v.rightEditor()->firstVisibleLine(), first);
        QVERIFY(v.nextChange());
        QCOMPARE(v.currentChange(), 2);
        QVERIFY(!v.nextChange());
        QCOMPARE(v.currentChange(), 2);
        QVERIFY(v.previousChange());
        QCOMPARE(v.currentChange(), 1);
        QCOMPARE(spy.last().at(0).toInt(), 1);
        QCOMPARE(spy.last().at(1).toInt(), 3);

        // The same through the shortcuts, with the focus inside the view.
        v.activateWindow();
        v.leftEditor()->setFocus();
        QVERIFY(QTest::qWaitForWindowActive(&v));
        QTest::keyClick(v.leftEditor(), Qt::Key_Down, Qt::AltModifier);
        QTRY_COMPARE(v.currentChange(), 2);
        QTest::keyClick(v.leftEditor(), Qt::Key_Up, Qt::AltModifier);
        QTest::keyClick(v.leftEditor(), Qt::Key_Up, Qt::AltModifier);
        QTRY_COMPARE(v.currentChange(), 0);
    }

    void scrollingOneSideScrollsTheOther()
    {
        DiffView v;
        v.resize(700, 200);
        v.show();
        QVERIFY(QTest::qWaitForWindowExposed(&v));
        const auto [a, b] = threeHunks();
        v.compareTexts(QStringLiteral("a"), a, QStringLiteral("b"), b);
        v.rightEditor()->setFirstVisibleLine(40); // as the wheel or the keys scroll
        QTRY_COMPARE(v.leftEditor()->firstVisibleLine(), 40);
        v.leftEditor()->verticalScrollBar()->setValue(12); // as a drag of the scroll bar
        QTRY_COMPARE(v.rightEditor()->firstVisibleLine(), 12);
        QCOMPARE(v.leftEditor()->firstVisibleLine(), 12); // and nothing pulled it back
        // Next change places both sides, and they stay there once painted.
        QVERIFY(v.nextChange());
        const int top = v.leftEditor()->firstVisibleLine();
        // Painting delivers the editors' deferred scroll notifications: they must not move anything.
        v.leftEditor()->viewport()->repaint();
        v.rightEditor()->viewport()->repaint();
        QCoreApplication::processEvents();
        QCOMPARE(v.leftEditor()->firstVisibleLine(), top);
        QCOMPARE(v.rightEditor()->firstVisibleLine(), top);
    }

    void inlineMode()
    {
        DiffView v;
        const auto [a, b] = threeHunks();
        v.compareTexts(QStringLiteral("a"), a, QStringLiteral("b"), b);
        v.setMode(DiffView::Mode::Inline);
        const diff::DiffResult &d = v.result();
        // Every pair is one row, a change two (the old line, then the new one).
        QCOMPARE(v.inlineEditor()->lines(), d.pairs.size() + d.changed);
        QCOMPARE(v.hunkRow(0), 4);
        QVERIFY(hasMarker(v.inlineEditor(), 4, DiffView::RemovedMarker));
        QVERIFY(hasMarker(v.inlineEditor(), 5, DiffView::AddedMarker));
        QCOMPARE(indicatorAt(v.inlineEditor(), 5, 17), 1);
        QCOMPARE(v.hunkRow(1), 31); // line 31 of the right text, one row later for the change
        QVERIFY(v.nextChange());
        int line = -1, index = -1;
        v.inlineEditor()->getCursorPosition(&line, &index);
        QCOMPARE(line, 31);
        QCOMPARE(v.inlineEditor()->text(31).trimmed(), QStringLiteral("tl.debug_barrier()"));
    }

    void identicalAndEmpty()
    {
        DiffView v;
        v.compareTexts(QStringLiteral("a"), QStringLiteral("x\n"), QStringLiteral("b"), QStringLiteral("x\n"));
        QCOMPARE(v.changeCount(), 0);
        QCOMPARE(v.currentChange(), -1);
        QVERIFY(!v.nextChange());
        v.compareTexts({}, {}, {}, {});
        QCOMPARE(v.changeCount(), 0);
    }

    void candidatesAndQuickPicks()
    {
        Run run;
        run.candidates = {cand("c1", {}, CandidateKind::Seed), cand("c2", "c1", CandidateKind::Repair),
                          cand("c3", "c2", CandidateKind::AlgoOpt), cand("c4", "c3", CandidateKind::StageGrid),
                          cand("c5", {}, CandidateKind::Seed)};
        DiffView v;
        v.setCodeProvider([](const Candidate &c) {
            return QStringLiteral("import torch\n# %1\nx = 1\n").arg(c.id);
        });
        v.setRun(run, QString());
        QSignalSpy shown(&v, &DiffView::diffShown);

        v.setCurrentCandidate(QStringLiteral("c4"));
        QCOMPARE(v.quickPickIds(DiffView::QuickPick::ParentToChild), qMakePair(QStringLiteral("c3"), QStringLiteral("c4")));
        QCOMPARE(v.quickPickIds(DiffView::QuickPick::SeedToRepair), qMakePair(QStringLiteral("c1"), QStringLiteral("c2")));
        QCOMPARE(v.quickPickIds(DiffView::QuickPick::RepairToAlgoOpt), qMakePair(QStringLiteral("c2"), QStringLiteral("c3")));
        QCOMPARE(v.quickPickIds(DiffView::QuickPick::SeedToAlgoOpt), qMakePair(QStringLiteral("c1"), QStringLiteral("c3")));
        // From a seed, the picks look down its subtree; a lone seed has none.
        v.setCurrentCandidate(QStringLiteral("c1"));
        QCOMPARE(v.quickPickIds(DiffView::QuickPick::SeedToAlgoOpt), qMakePair(QStringLiteral("c1"), QStringLiteral("c3")));
        QVERIFY(v.quickPickIds(DiffView::QuickPick::ParentToChild).first.isEmpty());
        v.setCurrentCandidate(QStringLiteral("c5"));
        QVERIFY(!v.applyQuickPick(DiffView::QuickPick::SeedToRepair));

        v.setCurrentCandidate(QStringLiteral("c3"));
        QVERIFY(v.applyQuickPick(DiffView::QuickPick::ParentToChild));
        QCOMPARE(v.leftId(), QStringLiteral("c2"));
        QCOMPARE(v.rightId(), QStringLiteral("c3"));
        QCOMPARE(v.changeCount(), 1);
        QCOMPARE(v.rightEditor()->text(1).trimmed(), QStringLiteral("# c3"));
        if (!qEnvironmentVariableIsEmpty("KWB_DIFF_SNAPSHOT")) { // to look at it: KWB_DIFF_SNAPSHOT=/tmp/d.png
            const auto [a, b] = threeHunks();
            v.compareTexts(QStringLiteral("left"), a, QStringLiteral("right"), b);
            v.resize(1000, 420);
            v.show();
            QVERIFY(QTest::qWaitForWindowExposed(&v));
            QVERIFY(v.nextChange());
            QVERIFY(v.grab().save(qEnvironmentVariable("KWB_DIFF_SNAPSHOT")));
            v.setMode(DiffView::Mode::Inline);
            QVERIFY(v.grab().save(qEnvironmentVariable("KWB_DIFF_SNAPSHOT") + QStringLiteral(".inline.png")));
            v.setMode(DiffView::Mode::SideBySide);
            QVERIFY(v.applyQuickPick(DiffView::QuickPick::ParentToChild));
        }
        QCOMPARE(shown.last().at(0).toString(), QStringLiteral("c2"));

        // The pickers follow, and choosing in a picker diffs again.
        auto *left = v.findChild<QComboBox *>(QStringLiteral("leftPicker"));
        auto *right = v.findChild<QComboBox *>(QStringLiteral("rightPicker"));
        QCOMPARE(left->currentData().toString(), QStringLiteral("c2"));
        QCOMPARE(right->currentData().toString(), QStringLiteral("c3"));
        right->setCurrentIndex(right->findData(QStringLiteral("c5")));
        QCOMPARE(v.rightId(), QStringLiteral("c5"));
        QCOMPARE(v.rightEditor()->text(1).trimmed(), QStringLiteral("# c5"));
        QVERIFY(!v.compareCandidates(QStringLiteral("c1"), QStringLiteral("nope")));

        // A live run grows: the pickers list the new candidate, the diff on display stays.
        const int rowsBefore = v.leftEditor()->lines();
        run.candidates.append(cand("c6", "c3", CandidateKind::StageMemory));
        v.updateRun(run);
        QCOMPARE(right->findData(QStringLiteral("c6")), right->count() - 1);
        QCOMPARE(v.leftId(), QStringLiteral("c2"));
        QCOMPARE(v.rightId(), QStringLiteral("c5"));
        QCOMPARE(right->currentData().toString(), QStringLiteral("c5"));
        QCOMPARE(v.leftEditor()->lines(), rowsBefore);
    }

    void promptsOfTwoCalls()
    {
        LlmExchange x1, x2;
        x1.id = QStringLiteral("x0001");
        x2.id = QStringLiteral("x0002");
        x1.messages = {{QStringLiteral("system"), QStringLiteral("You write Triton.")},
                       {QStringLiteral("user"), QStringLiteral("Optimize this.\nKeep the API.")}};
        x2.messages = {{QStringLiteral("system"), QStringLiteral("You write Triton.")},
                       {QStringLiteral("user"), QStringLiteral("Repair this.\nKeep the API.")}};
        DiffView v;
        v.compareExchanges(x1, x2);
        QCOMPARE(v.changeCount(), 1);
        QCOMPARE(v.result().changed, 1);
        QVERIFY(!v.leftEditor()->lexer()); // prompts are not Python
        QVERIFY(DiffView::promptText(x1).startsWith(QLatin1String("### system\n")));
        // Back to kernels: the Python lexer returns.
        v.compareTexts(QStringLiteral("a"), QStringLiteral("x = 1\n"), QStringLiteral("b"), QStringLiteral("x = 2\n"));
        QVERIFY(v.leftEditor()->lexer());
    }
};

QTEST_MAIN(TestDiffView)
#include "tst_diffview.moc"
