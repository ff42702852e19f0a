// SPDX-License-Identifier: MIT
// The Suite view: SuiteModel and SuiteFilterModel under QAbstractItemModelTester (rows, live
// updates, sorting, failing / flagged / text filters), the dock on the fixture suite (a real
// `kwb suite` output: opening a row asks for its run, suite.json rewritten by another process is
// followed live), and the New-suite dialog's checks.
#include "mainwindow.h"
#include "suite/newsuitedialog.h"
#include "suite/suitedock.h"
#include "suite/suitemodel.h"
#include "suite/suiterunner.h"
#include "../../core/suite/suitetest.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QLineEdit>
#include <QProcess>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace kwb;

namespace {
suite::SuiteEntry entry(const QString &name, suite::EntryState st, bool correct, double eager, QStringList flags = {})
{
    suite::SuiteEntry e;
    e.taskName = name;
    e.taskFile = QStringLiteral("/t/%1.py").arg(name);
    e.state = st;
    e.correct = correct;
    e.speedupVsEager = eager;
    e.integrityFlags = flags;
    return e;
}

QStringList column(const QAbstractItemModel *m, int col = SuiteModel::Task)
{
    QStringList out;
    for (int r = 0; r < m->rowCount(); ++r)
        out << m->index(r, col).data().toString();
    return out;
}

/// A suite of the small CPU tasks through the loopback server's provider "fake", quick settings.
suite::SuiteConfig quickConfig(const QString &dir, int seeds)
{
    suite::SuiteConfig cfg;
    cfg.suiteDir = dir;
    cfg.provider.provider = QStringLiteral("fake");
    cfg.pipeline.eval.device = QStringLiteral("cpu");
    cfg.pipeline.eval.trials = 2;
    cfg.pipeline.eval.repeat = 5;
    cfg.pipeline.seeds = seeds;
    cfg.pipeline.maxRepairs = 1;
    cfg.pipeline.scoreThreshold = 0;
    cfg.pipeline.stages = false;
    // Real workers, and no verdict that hangs on a CPU clock: the judge's run-time integrity rules may
    // refuse an honest microsecond copy now and then on a loaded CPU (its own tests hold it to them),
    // which would turn "correct" below into a coin toss. Correctness alone decides here.
    cfg.pipeline.eval.integrity = false;
    return cfg;
}

QString copyFixture(const QTemporaryDir &tmp)
{
    QProcess::execute(QStringLiteral("cp"), {QStringLiteral("-r"), QStringLiteral(KWB_TEST_DATA "/suite/fixture"), tmp.path()});
    return tmp.filePath(QStringLiteral("fixture"));
}
} // namespace

class TestSuiteView : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void modelAndFilters()
    {
        SuiteModel model;
        SuiteFilterModel filter;
        filter.setSourceModel(&model);
        QAbstractItemModelTester t1(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester t2(&filter, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setEntries({entry(QStringLiteral("a_fast"), suite::EntryState::Finished, true, 3.0),
                          entry(QStringLiteral("b_wrong"), suite::EntryState::Finished, false, NAN),
                          entry(QStringLiteral("c_flagged"), suite::EntryState::Finished, true, 1.5, {QStringLiteral("integrity.caching")}),
                          entry(QStringLiteral("d_running"), suite::EntryState::Running, false, NAN)});
        QCOMPARE(model.rowCount(), 4);
        QCOMPARE(model.columnCount(), int(SuiteModel::ColumnCount));
        QCOMPARE(model.index(0, SuiteModel::VsEager).data().toString(), QStringLiteral("3.00x"));
        QCOMPARE(model.index(1, SuiteModel::Correct).data().toString(), QStringLiteral("no"));
        QCOMPARE(model.index(3, SuiteModel::Correct).data().toString(), QStringLiteral("–")); // not known yet

        filter.sort(SuiteModel::VsEager, Qt::DescendingOrder);
        QCOMPARE(column(&filter).first(), QStringLiteral("a_fast"));
        filter.setShow(SuiteFilterModel::Show::Failing);
        QCOMPARE(column(&filter), QStringList{QStringLiteral("b_wrong")}); // running is not failing (yet)
        filter.setShow(SuiteFilterModel::Show::Flagged);
        QCOMPARE(column(&filter), QStringList{QStringLiteral("c_flagged")});
        filter.setShow(SuiteFilterModel::Show::All);
        filter.setText(QStringLiteral("RUNNING"));
        QCOMPARE(column(&filter), QStringList{QStringLiteral("d_running")});
        filter.setText({});

        // Live: the running task fails; the failing filter picks it up, the row updates in place.
        filter.setShow(SuiteFilterModel::Show::Failing);
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        auto failed = entry(QStringLiteral("d_running"), suite::EntryState::Failed, false, NAN);
        failed.failureReason = QStringLiteral("time limit");
        model.updateEntry(3, failed);
        QCOMPARE(changed.size(), 1);
        QCOMPARE(column(&filter).size(), 2);
        // The same task list again: rows are updated, not reset.
        QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
        model.setEntries(model.entries());
        QCOMPARE(reset.size(), 0);
        model.setEntries({entry(QStringLiteral("other"), suite::EntryState::Pending, false, NAN)});
        QCOMPARE(reset.size(), 1);
    }

    void dockOnAFixtureSuite()
    {
        QTemporaryDir tmp;
        const QString dir = copyFixture(tmp);
        SuiteDock dock;
        QAbstractItemModelTester tester(dock.filterModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QString error;
        QVERIFY2(dock.openSuite(dir, &error), qPrintable(error));
        QCOMPARE(dock.model()->rowCount(), 4);
        QVERIFY2(dock.progressText().contains(QLatin1String("4/4 done")), qPrintable(dock.progressText()));
        QVERIFY(dock.progressText().contains(QLatin1String("2 failing")));

        dock.findChild<QComboBox *>(QStringLiteral("suiteShow"))->setCurrentIndex(1); // failing only
        QCOMPARE(dock.filterModel()->rowCount(), 2);
        dock.findChild<QComboBox *>(QStringLiteral("suiteShow"))->setCurrentIndex(2); // flagged
        QCOMPARE(column(dock.filterModel()), QStringList{QStringLiteral("1_Linear_GELU_Scale")});

        // Opening a row asks for that run directory.
        QSignalSpy activated(&dock, &SuiteDock::runActivated);
        emit dock.table()->activated(dock.filterModel()->index(0, 0));
        QCOMPARE(activated.size(), 1);
        const QString runDir = activated.first().first().toString();
        QVERIFY(runDir.startsWith(dir + QStringLiteral("/runs/")));
        QVERIFY(runDir.contains(QLatin1String("1_Linear_GELU_Scale")));

        // Another process (a `kwb suite`) rewrites suite.json: the view follows.
        auto s = suite::readSuite(dir);
        QVERIFY(s);
        s->entries[0].state = suite::EntryState::Failed;
        s->entries[0].failureReason = QStringLiteral("changed elsewhere");
        s->entries[0].correct = false;
        QVERIFY(suite::writeSuite(dir, *s));
        QTRY_COMPARE_WITH_TIMEOUT(dock.model()->entries().at(0).failureReason, QStringLiteral("changed elsewhere"), 10000);

        // Bad folders are clear errors and leave the view as it was.
        QVERIFY(!dock.openSuite(tmp.filePath(QStringLiteral("nope")), &error));
        QVERIFY(error.contains(QLatin1String("no suite")));
        QCOMPARE(dock.model()->rowCount(), 4);

        const QStringList files = dock.exportReport(&error);
        QVERIFY2(files.size() == 2, qPrintable(error));
    }

    void rowsOpenTheirRunInTheWindow()
    {
        QTemporaryDir tmp;
        const QString dir = copyFixture(tmp);
        MainWindow w;
        w.setInteractive(false);
        QVERIFY(w.suiteDock());
        QVERIFY(w.suiteDock()->openSuite(dir));
        QSignalSpy opened(&w, &MainWindow::runOpened);
        const QModelIndex first = w.suiteDock()->filterModel()->index(0, 0);
        emit w.suiteDock()->table()->activated(first);
        QVERIFY(opened.wait(20000));
        QVERIFY(w.runDirectory().startsWith(dir));
        QCOMPARE(w.run().info.taskName, w.suiteDock()->filterModel()->index(0, SuiteModel::Task).data().toString());
    }

    void runsASuiteInTheWindow()
    {
        // A real suite started from the Suite view: real pipelines, workers and a loopback LLM.
        test::SuiteServer server;
        QTemporaryDir tmp;
        qputenv("KWB_CONFIG_DIR", server.configDir().toLocal8Bit());
        qputenv("KWB_PYTHON", test::testPython().toLocal8Bit());
        suite::SuiteConfig cfg = quickConfig(tmp.filePath(QStringLiteral("suite")), 1);
        cfg.jobs = 2;
        SuiteDock dock;
        QAbstractItemModelTester tester(dock.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy finished(&dock, &SuiteDock::suiteFinished);
        QString error;
        QVERIFY2(dock.startSuite(cfg, {QStringLiteral(KWB_SOURCE_DIR "/tasks/level1/1_ReLU.py"),
                                       QStringLiteral(KWB_TEST_DATA "/tasks/relu_small.py")}, &error),
                 qPrintable(error));
        QCOMPARE(dock.model()->rowCount(), 2);
        QVERIFY(finished.wait(240000));
        for (const auto &e : dock.model()->entries()) {
            QCOMPARE(e.state, suite::EntryState::Finished);
            QVERIFY2(e.correct, qPrintable(e.taskName + QStringLiteral(": ") + e.failureReason));
        }
        QVERIFY(dock.progressText().contains(QLatin1String("2/2 done")));
        // What the view shows is what suite.json holds.
        const auto onDisk = suite::readSuite(cfg.suiteDir);
        QVERIFY(onDisk);
        QCOMPARE(onDisk->entries.size(), 2);
        for (int i = 0; i < 2; ++i) { // field by field: the CUDA-graph speedup is NaN on a CPU (NaN != NaN)
            const auto &a = onDisk->entries.at(i);
            const auto &b = dock.model()->entries().at(i);
            QCOMPARE(a.state, b.state);
            QCOMPARE(a.bestCandidateId, b.bestCandidateId);
            QCOMPARE(a.speedupVsEager, b.speedupVsEager);
            QCOMPARE(a.runDir, b.runDir);
            QCOMPARE(a.tokens, b.tokens);
        }
    }

    void aRunningTaskIsFollowedLive()
    {
        // A slow LLM (1.5 s per answer): the task is still running when its row is opened.
        test::SuiteServer server({}, 1500);
        QTemporaryDir tmp;
        qputenv("KWB_CONFIG_DIR", server.configDir().toLocal8Bit());
        qputenv("KWB_PYTHON", test::testPython().toLocal8Bit());
        suite::SuiteConfig cfg = quickConfig(tmp.filePath(QStringLiteral("suite")), 2);
        cfg.pipeline.maxRepairs = 0;
        MainWindow w;
        w.setInteractive(false);
        QString error;
        QVERIFY2(w.suiteDock()->startSuite(cfg, {QStringLiteral(KWB_SOURCE_DIR "/tasks/level1/1_ReLU.py")}, &error), qPrintable(error));
        QTRY_VERIFY_WITH_TIMEOUT(!w.suiteDock()->model()->entries().at(0).runDir.isEmpty(), 30000);
        QSignalSpy finished(w.suiteDock(), &SuiteDock::suiteFinished);
        w.suiteDock()->openRow(0);
        QVERIFY(w.suiteDock()->livePipeline(w.runDirectory()));
        const int before = w.run().candidates.size();
        // Candidates arrive in the window as the run makes them, without reopening it.
        QTRY_VERIFY_WITH_TIMEOUT(w.run().candidates.size() > before, 60000);
        QVERIFY(finished.wait(120000));
        QCOMPARE(w.run().candidates.size(), 3); // baseline and two seeds
    }

    void newSuiteDialogChecks()
    {
        QTemporaryDir tmp;
        NewSuiteDialog dlg(tmp.path());
        QVERIFY(dlg.problems().join(QLatin1Char(' ')).contains(QLatin1String("Add at least one task")));
        dlg.addTaskPaths({QStringLiteral(KWB_SOURCE_DIR "/tasks/level1")});
        QVERIFY2(dlg.problems().isEmpty(), qPrintable(dlg.problems().join(QLatin1Char('\n'))));
        QCOMPARE(dlg.taskFiles().size(), 3);
        const auto cfg = dlg.config();
        QVERIFY(cfg.suiteDir.startsWith(tmp.path()));
        QCOMPARE(cfg.jobs, 4);
        QCOMPARE(cfg.backend, QStringLiteral("local"));
        dlg.addTaskPaths({tmp.filePath(QStringLiteral("missing.py"))});
        QVERIFY(!dlg.problems().isEmpty());
    }
};

QTEST_MAIN(TestSuiteView)
#include "tst_suiteview.moc"
