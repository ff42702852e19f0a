// SPDX-License-Identifier: MIT
// The profile views on real H100 captures: the before/after model (with QAbstractItemModelTester),
// the view that pairs a candidate with its nearest profiled ancestor or any two picked, and the
// candidate tree's sortable roofline column.
#include "../../capturedprofiles.h"

#include "candidatetreemodel.h"
#include "profile/profilecomparemodel.h"
#include "profile/profileview.h"

#include <QAbstractItemModelTester>
#include <QBrush>
#include <QComboBox>
#include <QSortFilterProxyModel>
#include <QTest>

using namespace kwb;

class TestProfileView : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void compareModelMarksChanges()
    {
        ProfileCompareModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const KernelProfile seed = test::capturedProfile(QStringLiteral("gru39_seed"));
        const KernelProfile showcase = test::capturedProfile(QStringLiteral("gru39_showcase"));
        QVERIFY(seed.measured() && showcase.measured());
        model.setProfiles(&seed, QStringLiteral("c0002"), &showcase, QStringLiteral("c0004"));
        QCOMPARE(model.rowCount(), int(compareProfiles(seed, showcase).size()));
        QCOMPARE(model.headerData(ProfileCompareModel::BeforeColumn, Qt::Horizontal).toString(), QStringLiteral("c0002"));
        QCOMPARE(model.headerData(ProfileCompareModel::AfterColumn, Qt::Horizontal).toString(), QStringLiteral("c0004"));
        int occupancy = -1;
        for (int r = 0; r < model.rowCount(); ++r)
            if (model.index(r, 0).data(ProfileCompareModel::KeyRole).toString() == QLatin1String("achieved_occupancy_pct"))
                occupancy = r;
        QVERIFY(occupancy >= 0);
        const QModelIndex change = model.index(occupancy, ProfileCompareModel::ChangeColumn);
        QCOMPARE(change.data().toString(), QStringLiteral("+105%"));
        QCOMPARE(change.data(ProfileCompareModel::ChangeRole).toInt(), int(ProfileRow::Change::Better));
        QCOMPARE(change.data(Qt::ForegroundRole).value<QBrush>().color(), QColor(0x2e, 0xa0, 0x43));
        QCOMPARE(model.index(0, ProfileCompareModel::ChangeColumn).data().toString(), QStringLiteral("other roof"));
        // One profile alone: no before column, no changes.
        model.setProfiles(nullptr, {}, &showcase, QStringLiteral("c0004"));
        QVERIFY(model.index(0, ProfileCompareModel::BeforeColumn).data().toString().isEmpty());
        QVERIFY(model.index(occupancy, ProfileCompareModel::ChangeColumn).data().toString().isEmpty());
        model.clear();
        QCOMPARE(model.rowCount(), 0);
    }

    void viewPairsWithTheProfiledAncestorOrAnyTwo()
    {
        ProfileView view;
        QAbstractItemModelTester tester(view.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        view.setRun(test::gruProfiledRun());
        // The rewrite against the seed whose analysis led to it (the repair between has no profile).
        view.showCandidate(QStringLiteral("c0004"));
        QCOMPARE(view.afterId(), QStringLiteral("c0004"));
        QCOMPARE(view.beforeId(), QStringLiteral("c0002"));
        QVERIFY2(view.summaryText().startsWith(QStringLiteral("c0004 algorithm_optimized_seed1: compute-bound at 24% of peak FP32")),
                 qPrintable(view.summaryText()));
        QVERIFY(view.summaryText().contains(QStringLiteral("\nc0002 seed1: memory-bound at 1.3% of peak bandwidth")));
        QVERIFY(view.summaryText().contains(QStringLiteral("profiled in 27.4 s")));
        QVERIFY(view.model()->rowCount() > 10);
        // Pick another "before" in the combo box as a person would: the table follows.
        auto *before = view.findChild<QComboBox *>(QStringLiteral("profileBefore"));
        QVERIFY(before);
        before->setCurrentIndex(before->findData(QString()));
        QCOMPARE(view.beforeId(), QString());
        QVERIFY(view.model()->index(0, ProfileCompareModel::ChangeColumn).data().toString().isEmpty());
        // Any two: the CPU seed shows its reason, one line.
        view.compare(QStringLiteral("c0002"), QStringLiteral("c0005"));
        QVERIFY(view.summaryText().startsWith(QStringLiteral("c0005 seed2: not profiled: no GPU\n")));
        // A seed with no profile at all says where profiles come from.
        view.showCandidate(QStringLiteral("c0003"));
        QVERIFY(view.summaryText().startsWith(QStringLiteral("c0003 seed1_repair1: no profile")));
        if (const QString dir = qEnvironmentVariable("KWB_SCREENSHOT_DIR"); !dir.isEmpty()) {
            view.showCandidate(QStringLiteral("c0004"));
            view.resize(900, 560);
            view.grab().save(dir + QStringLiteral("/profileview.png"));
        }
    }

    void treeHasASortableRooflineColumn()
    {
        CandidateTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setRun(test::gruProfiledRun());
        const int col = CandidateTreeModel::RooflineColumn;
        QCOMPARE(model.headerData(col, Qt::Horizontal).toString(), QStringLiteral("Roofline"));
        QCOMPARE(model.indexOf(QStringLiteral("c0002"), col).data().toString(), QStringLiteral("mem 1.3%"));
        QCOMPARE(model.indexOf(QStringLiteral("c0004"), col).data().toString(), QStringLiteral("FP32 24%"));
        QCOMPARE(model.indexOf(QStringLiteral("c0005"), col).data().toString(), QStringLiteral("—"));
        QVERIFY(model.indexOf(QStringLiteral("c0003"), col).data().toString().isEmpty());
        QVERIFY(model.indexOf(QStringLiteral("c0004"), col).data(Qt::ToolTipRole).toString().contains(QStringLiteral("TFLOP/s")));
        const double seedFraction = model.indexOf(QStringLiteral("c0002"), col).data(CandidateTreeModel::SortRole).toDouble();
        const double childFraction = model.indexOf(QStringLiteral("c0004"), col).data(CandidateTreeModel::SortRole).toDouble();
        QVERIFY(seedFraction > 0.012 && seedFraction < 0.014);
        QVERIFY(childFraction > 0.2 && childFraction < 0.3);
        // Sorted by the fraction of the binding roof, highest first: the top-level rows reorder.
        QSortFilterProxyModel proxy;
        proxy.setSourceModel(&model);
        proxy.setSortRole(CandidateTreeModel::SortRole);
        proxy.sort(col, Qt::DescendingOrder);
        QCOMPARE(model.indexOf(QStringLiteral("c0006"), col).data().toString(), QStringLiteral("mem 2.8%"));
        auto order = [&proxy] {
            QStringList ids;
            for (int r = 0; r < proxy.rowCount(); ++r)
                ids << proxy.index(r, 0).data(CandidateTreeModel::CandidateIdRole).toString();
            return ids;
        };
        // c0005 has no fraction (wherever the proxy puts it); the two measured roots follow theirs.
        QVERIFY(order().indexOf(QStringLiteral("c0006")) < order().indexOf(QStringLiteral("c0002")));
        proxy.sort(col, Qt::AscendingOrder);
        QVERIFY(order().indexOf(QStringLiteral("c0002")) < order().indexOf(QStringLiteral("c0006")));
    }
};

QTEST_MAIN(TestProfileView)
#include "tst_profileview.moc"
