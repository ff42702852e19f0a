// SPDX-License-Identifier: MIT
// The candidate tree model over a run written by the store: shape, columns, live inserts and
// updates that keep the selection, filtering and sorting. QAbstractItemModelTester watches throughout.
#include "candidatetreemodel.h"
#include "candidatetreeview.h"
#include "fixturerun.h"

#include <QAbstractItemModelTester>
#include <QHeaderView>
#include <QLineEdit>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>

using namespace kwb;

class TestCandidateTreeModel : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_tmp;
    fixture::StandardRun m_fixture;
    Run m_run; ///< read back with store::openRun

    static QString text(const QModelIndex &idx, int column)
    {
        return idx.siblingAtColumn(column).data().toString();
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_tmp.isValid());
        m_fixture = fixture::writeStandardRun(m_tmp.path());
        QString error;
        auto run = store::openRun(m_fixture.dir, &error);
        QVERIFY2(run, qPrintable(error));
        m_run = *run;
        QCOMPARE(m_run.candidates.size(), 5);
    }

    void shapeFollowsParents()
    {
        CandidateTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setRun(m_run);
        QCOMPARE(model.rowCount(), 2); // seed1 and seed2
        const QModelIndex seed1 = model.index(0, 0);
        QCOMPARE(seed1.data(CandidateTreeModel::CandidateIdRole).toString(), QStringLiteral("c0001"));
        const QModelIndex repair = model.index(0, 0, seed1);
        const QModelIndex algo = model.index(0, 0, repair);
        const QModelIndex stage = model.index(0, 0, algo);
        QCOMPARE(repair.data(CandidateTreeModel::CandidateIdRole).toString(), QStringLiteral("c0002"));
        QCOMPARE(algo.data(CandidateTreeModel::CandidateIdRole).toString(), QStringLiteral("c0003"));
        QCOMPARE(stage.data(CandidateTreeModel::CandidateIdRole).toString(), QStringLiteral("c0004"));
        QCOMPARE(model.parent(stage), algo);
        QCOMPARE(model.indexOf(QStringLiteral("c0003")), algo);
        QCOMPARE(text(algo, CandidateTreeModel::KindColumn), QStringLiteral("algo-opt"));
        QCOMPARE(text(stage, CandidateTreeModel::KindColumn), QStringLiteral("stage: grid"));
    }

    void columnsShowScoresLatencyDeltaTokens()
    {
        CandidateTreeModel model;
        model.setRun(m_run);
        const QModelIndex repair = model.indexOf(QStringLiteral("c0002"));
        const QModelIndex algo = model.indexOf(QStringLiteral("c0003"));
        // 48.7 / 30 and 9.02 / 30
        QCOMPARE(text(repair, CandidateTreeModel::ScoreEagerColumn), QStringLiteral("1.62×"));
        QCOMPARE(text(repair, CandidateTreeModel::ScoreGraphColumn), QStringLiteral("0.30×"));
        QCOMPARE(text(repair, CandidateTreeModel::LatencyColumn), QStringLiteral("30.00 ± 0.50"));
        QCOMPARE(text(algo, CandidateTreeModel::DeltaColumn), QStringLiteral("-66.7 %")); // 10 vs 30 ms
        QCOMPARE(text(repair, CandidateTreeModel::TokensColumn), QLocale().toString(2700));
        QVERIFY(!algo.siblingAtColumn(CandidateTreeModel::NameColumn).data(Qt::DecorationRole).value<QIcon>().isNull());
        // A failed candidate has no score; its status says why.
        const QModelIndex seed1 = model.indexOf(QStringLiteral("c0001"));
        QVERIFY(text(seed1, CandidateTreeModel::ScoreEagerColumn).isEmpty());
        QCOMPARE(text(seed1, CandidateTreeModel::StatusColumn), QStringLiteral("compile error"));
        // The integrity violation keeps c0003 from being best, although it is fastest.
        QCOMPARE(model.bestId(), QStringLiteral("c0002"));
        QVERIFY(text(repair, CandidateTreeModel::StatusColumn).startsWith(QStringLiteral("★ best")));
        QVERIFY(text(algo, CandidateTreeModel::StatusColumn).contains(QStringLiteral("integrity")));
    }

    void liveInsertAndUpdateKeepSelection()
    {
        CandidateTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setRun(m_run);
        CandidateTreeView view(&model);
        QSignalSpy selected(&view, &CandidateTreeView::candidateSelected);
        view.selectCandidate(QStringLiteral("c0003"));
        QCOMPARE(selected.count(), 1);
        QCOMPARE(selected.last().at(0).toString(), QStringLiteral("c0003"));

        QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);

        // A re-prompt of c0003 arrives while the run goes on.
        Candidate re;
        re.id = QStringLiteral("c0006");
        re.parentId = QStringLiteral("c0003");
        re.kind = CandidateKind::Reprompt;
        re.status = CandidateStatus::Pending;
        model.addCandidate(re);
        QCOMPARE(inserted.count(), 1);
        QCOMPARE(inserted.last().at(0).value<QModelIndex>(), model.indexOf(QStringLiteral("c0003")));
        QCOMPARE(model.rowCount(model.indexOf(QStringLiteral("c0003"))), 2);
        QCOMPARE(text(model.indexOf(QStringLiteral("c0006")), CandidateTreeModel::StatusColumn), QStringLiteral("pending"));

        // It gets evaluated: faster than the best, clean, so it becomes best.
        re.status = CandidateStatus::Evaluated;
        re.eval = fixture::eval(EvalStatus::Ok, 5.0, 0.1);
        model.updateCandidate(re);
        QVERIFY(changed.count() >= 1);
        const QModelIndex reIdx = model.indexOf(QStringLiteral("c0006"));
        QCOMPARE(text(reIdx, CandidateTreeModel::DeltaColumn), QStringLiteral("-50.0 %"));
        QCOMPARE(model.bestId(), QStringLiteral("c0006"));
        QVERIFY(!text(model.indexOf(QStringLiteral("c0002")), CandidateTreeModel::StatusColumn).contains(QStringLiteral("best")));

        // A candidate whose parent is unknown goes to the top level instead of getting lost.
        Candidate orphan;
        orphan.id = QStringLiteral("c0007");
        orphan.parentId = QStringLiteral("c9999");
        model.addCandidate(orphan);
        QCOMPARE(model.rowCount(), 3);

        QCOMPARE(reset.count(), 0);
        QCOMPARE(view.currentCandidateId(), QStringLiteral("c0003"));
        QCOMPARE(selected.count(), 1); // the selection never moved
        // The new row is visible under its (expanded) parent.
        const QModelIndex proxyParent = view.proxy()->mapFromSource(model.indexOf(QStringLiteral("c0003")));
        QVERIFY(view.treeView()->isExpanded(proxyParent));
    }

    void exchangeUpdatesTokens()
    {
        CandidateTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setRun(m_run);
        LlmExchange x = *m_run.exchange(m_run.candidate(QStringLiteral("c0005"))->exchangeIds.first());
        x.outputTokens += 1000;
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        model.updateExchange(x);
        QCOMPARE(changed.count(), 1);
        QCOMPARE(text(model.indexOf(QStringLiteral("c0005")), CandidateTreeModel::TokensColumn), QLocale().toString(2700));
    }

    void filterKeepsAncestorsAndSortByLatency()
    {
        CandidateTreeModel model;
        model.setRun(m_run);
        CandidateTreeView view(&model);
        QAbstractItemModelTester tester(view.proxy(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        view.filterEdit()->setText(QStringLiteral("stage"));
        QSortFilterProxyModel *proxy = view.proxy();
        QCOMPARE(proxy->rowCount(), 1); // seed1, the ancestor of the stage candidate
        QModelIndex i = proxy->index(0, 0);
        int depth = 0;
        while (proxy->rowCount(i) > 0) {
            QCOMPARE(proxy->rowCount(i), 1);
            i = proxy->index(0, 0, i);
            ++depth;
        }
        QCOMPARE(depth, 3);
        QCOMPARE(i.data(CandidateTreeModel::CandidateIdRole).toString(), QStringLiteral("c0004"));

        // Selecting a hidden candidate clears the filter rather than doing nothing.
        view.selectCandidate(QStringLiteral("c0005"));
        QVERIFY(view.filterEdit()->text().isEmpty());
        QCOMPARE(view.currentCandidateId(), QStringLiteral("c0005"));

        view.treeView()->sortByColumn(CandidateTreeModel::LatencyColumn, Qt::DescendingOrder);
        QCOMPARE(proxy->index(0, 0).data(CandidateTreeModel::CandidateIdRole).toString(), QStringLiteral("c0005"));
        view.treeView()->sortByColumn(CandidateTreeModel::NameColumn, Qt::AscendingOrder);
        QCOMPARE(proxy->index(0, 0).data(CandidateTreeModel::CandidateIdRole).toString(), QStringLiteral("c0001"));
    }

    void graphColumnWithNoiseBandSorts()
    {
        // Four seeds against the same baselines: clearly faster, inside the spread of the CUDA graph
        // (but not of eager), clearly slower, and a wrong result (no score at all).
        auto seed = [](const QString &id, EvalStatus status, double ms, double sd) {
            Candidate c;
            c.id = id;
            c.label = id;
            c.status = CandidateStatus::Evaluated;
            c.eval = fixture::eval(status, ms, sd); // eager 48.7 ± 6.1, graph 9.02 ± 0.05
            return c;
        };
        Run run;
        run.candidates = {seed(QStringLiteral("fast"), EvalStatus::Ok, 2.13, 0.02),
                          seed(QStringLiteral("same"), EvalStatus::Ok, 9.0, 0.1),
                          seed(QStringLiteral("slow"), EvalStatus::Ok, 30.0, 0.5),
                          seed(QStringLiteral("wrong"), EvalStatus::WrongResult, 1.0, 0.01)};
        Candidate cpu = seed(QStringLiteral("cpu"), EvalStatus::Ok, 0.008, 0.0002);
        cpu.eval->graph = LatencyStats(); // a CPU run has no CUDA graph
        cpu.eval->eager = fixture::latency(0.0079, 0.0002);
        run.candidates.append(cpu);

        CandidateTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setRun(run);
        auto graph = [&](const QString &id, int role = Qt::DisplayRole) {
            return model.indexOf(id, CandidateTreeModel::ScoreGraphColumn).data(role);
        };
        QCOMPARE(graph(QStringLiteral("fast")).toString(), QStringLiteral("4.23×"));
        QCOMPARE(graph(QStringLiteral("slow")).toString(), QStringLiteral("0.30×"));
        // 9.02 / 9.0 = 1.002, inside ±1.2 % (0.05/9.02 and 0.1/9.0 in quadrature): shown as noise.
        QCOMPARE(graph(QStringLiteral("same")).toString(), QStringLiteral("≈1.00× (within noise)"));
        QCOMPARE(graph(QStringLiteral("same"), CandidateTreeModel::CompactTextRole).toString(), QStringLiteral("≈1.00×"));
        QVERIFY(graph(QStringLiteral("same"), Qt::ToolTipRole).toString().contains(QStringLiteral("Within noise")));
        QVERIFY(!graph(QStringLiteral("fast"), CandidateTreeModel::CompactTextRole).isValid());
        QVERIFY(graph(QStringLiteral("fast"), Qt::ToolTipRole).toString().contains(QStringLiteral("9.02")));
        // The same candidate against eager (48.7 / 9.0 = 5.41) is far outside eager's spread.
        QCOMPARE(model.indexOf(QStringLiteral("same"), CandidateTreeModel::ScoreEagerColumn).data().toString(),
                 QStringLiteral("5.41×"));
        QVERIFY(graph(QStringLiteral("wrong")).toString().isEmpty());
        QVERIFY(!graph(QStringLiteral("wrong"), CandidateTreeModel::SortRole).isValid());
        QVERIFY(graph(QStringLiteral("wrong"), Qt::ToolTipRole).toString().contains(QStringLiteral("not correct")));
        QCOMPARE(graph(QStringLiteral("cpu")).toString(), QStringLiteral("–")); // correct, no graph measured
        QVERIFY(graph(QStringLiteral("cpu"), Qt::ToolTipRole).toString().contains(QStringLiteral("No CUDA-graph baseline")));
        QVERIFY(model.indexOf(QStringLiteral("cpu"), CandidateTreeModel::ScoreEagerColumn).data().toString().startsWith(u'≈'));
        QCOMPARE(model.headerData(CandidateTreeModel::ScoreGraphColumn, Qt::Horizontal).toString(), QStringLiteral("× graph"));

        // Sortable: by the speedup, rows without one last in both directions.
        CandidateTreeView view(&model);
        QAbstractItemModelTester proxyTester(view.proxy(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        auto order = [&] {
            QStringList ids;
            for (int r = 0; r < view.proxy()->rowCount(); ++r)
                ids << view.proxy()->index(r, 0).data(CandidateTreeModel::CandidateIdRole).toString();
            return ids;
        };
        view.treeView()->sortByColumn(CandidateTreeModel::ScoreGraphColumn, Qt::DescendingOrder);
        QCOMPARE(order(), (QStringList{"fast", "same", "slow", "wrong", "cpu"}));
        view.treeView()->sortByColumn(CandidateTreeModel::ScoreGraphColumn, Qt::AscendingOrder);
        QCOMPARE(order(), (QStringList{"slow", "same", "fast", "wrong", "cpu"}));
        // Shown beside "× eager", before it.
        QHeaderView *header = view.treeView()->header();
        QCOMPARE(header->visualIndex(CandidateTreeModel::ScoreGraphColumn) + 1, header->visualIndex(CandidateTreeModel::ScoreEagerColumn));

        // A live update that brings the candidate out of the noise updates its cell.
        Candidate faster = run.candidates.at(1);
        faster.eval->candidate = fixture::latency(4.5, 0.05);
        model.updateCandidate(faster);
        QCOMPARE(graph(QStringLiteral("same")).toString(), QStringLiteral("2.00×"));
    }

    void columnsFitLiveRowsUntilAPersonResizes()
    {
        // A live run starts with the baseline only; later rows with long labels widen the name
        // column (it was fitted to the first rows and cut every later name to "c0…ne").
        auto cand = [](const QString &id, const QString &parent, const QString &label) {
            Candidate c;
            c.id = id;
            c.parentId = parent;
            c.label = label;
            c.status = CandidateStatus::Evaluated;
            c.eval = fixture::eval(EvalStatus::Ok, 5.0, 0.05);
            return c;
        };
        Run run;
        run.candidates = {cand(QStringLiteral("c0001"), {}, QStringLiteral("baseline"))};
        CandidateTreeModel model;
        CandidateTreeView view(&model);
        view.resize(900, 400);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        model.setRun(run);
        QTreeView *tree = view.treeView();
        const QFontMetrics fm = tree->fontMetrics();
        QTRY_VERIFY(tree->columnWidth(CandidateTreeModel::NameColumn) >= fm.horizontalAdvance(QStringLiteral("c0001  baseline")));
        const QString longName = QStringLiteral("c0002  algorithm_optimized_seed1_repair1");
        model.addCandidate(cand(QStringLiteral("c0002"), QStringLiteral("c0001"), QStringLiteral("algorithm_optimized_seed1_repair1")));
        QTRY_VERIFY(tree->columnWidth(CandidateTreeModel::NameColumn) >= fm.horizontalAdvance(longName) + tree->indentation());
        QHeaderView *header = tree->header();
        for (int column : {int(CandidateTreeModel::ScoreGraphColumn), int(CandidateTreeModel::ScoreEagerColumn)})
            QVERIFY(header->sectionViewportPosition(column) + header->sectionSize(column) <= tree->viewport()->width());
        // A person's width wins over fitting.
        header->resizeSection(CandidateTreeModel::NameColumn, 120);
        model.addCandidate(cand(QStringLiteral("c0003"), QStringLiteral("c0002"), QStringLiteral("another_very_long_label_here")));
        QCoreApplication::processEvents(); // lets a (wrongly) pending fit run
        QCOMPARE(tree->columnWidth(CandidateTreeModel::NameColumn), 120);
    }

    void damagedParentCycleStaysFinite()
    {
        Run run;
        Candidate a, b;
        a.id = QStringLiteral("a");
        a.parentId = QStringLiteral("b");
        b.id = QStringLiteral("b");
        b.parentId = QStringLiteral("a");
        Candidate self;
        self.id = QStringLiteral("s");
        self.parentId = QStringLiteral("s");
        run.candidates = {a, b, self};
        CandidateTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setRun(run);
        QCOMPARE(model.rowCount(), 2); // the cycle is broken at one node, "s" is top level
        int reachable = 0;
        std::function<void(const QModelIndex &)> walk = [&](const QModelIndex &p) {
            for (int r = 0; r < model.rowCount(p); ++r) {
                ++reachable;
                walk(model.index(r, 0, p));
            }
        };
        walk({});
        QCOMPARE(reachable, 3);
    }
};

QTEST_MAIN(TestCandidateTreeModel)
#include "tst_candidatetreemodel.moc"
