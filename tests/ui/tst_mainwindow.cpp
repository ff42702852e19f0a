// SPDX-License-Identifier: MIT
// Smoke test of the real main window: opens a run written by the store, refuses a bad directory
// without losing the open run, remembers theme/layout/last run, lists its shortcuts. Saves a
// screenshot to $KWB_SCREENSHOT_DIR when that is set.
#include "candidatetreemodel.h"
#include "candidatetreeview.h"
#include "codeview.h"
#include "fixturerun.h"
#include "mainwindow.h"
#include "runsdock.h"
#include "chart/latencychart.h"
#include "diff/diffview.h"
#include "gpu/gpustatuswidget.h"
#include "shortcutsdialog.h"
#include "evaldetailsview.h"
#include "verdictsview.h"

#include <QAction>
#include <QDir>
#include <QDockWidget>
#include <QHeaderView>
#include <QLabel>
#include <QTreeWidget>
#include <QSet>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>

using namespace kwb;

class TestMainWindow : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_tmp;
    fixture::StandardRun m_fixture;

private slots:
    void initTestCase()
    {
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, m_tmp.filePath(QStringLiteral("config")));
        QCoreApplication::setOrganizationName(QStringLiteral("kwb-test"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_mainwindow"));
        qputenv("KWB_RUNS_DIR", m_tmp.filePath(QStringLiteral("runs")).toUtf8());
        m_fixture = fixture::writeStandardRun(m_tmp.filePath(QStringLiteral("runs")));
    }

    void opensARunAndListsIt()
    {
        MainWindow w;
        w.setInteractive(false);
        w.resize(1600, 1000);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QSignalSpy opened(&w, &MainWindow::runOpened);
        w.openRun(m_fixture.dir);
        QVERIFY(opened.wait(10000));
        QCOMPARE(w.runDirectory(), QFileInfo(m_fixture.dir).absoluteFilePath());
        QCOMPARE(w.run().candidates.size(), 5);
        QVERIFY(w.windowTitle().contains(m_fixture.run.info.id));
        QCOMPARE(w.candidateView()->treeView()->model()->rowCount(), 2);
        // The runs list (filled off the UI thread) shows the run, marked as the one open.
        const QString absDir = QFileInfo(m_fixture.dir).absoluteFilePath();
        QTRY_COMPARE(w.runsDock()->runsIn(RunsDock::Group::RunsFolder), QStringList{absDir});
        QVERIFY(w.runsDock()->currentRunText().contains(QFileInfo(m_fixture.dir).fileName()));
        w.selectCandidate(QStringLiteral("c0003"));
        // The diff and latency docks hold the run: chart bars for the measured candidates, a bar
        // click selects its candidate, and the diff follows the selection (parent → child).
        QCOMPARE(w.latencyChart()->barCount(), LatencyChart::barsOf(w.run()).size());
        QVERIFY(w.latencyChart()->barCount() > 0);
        const QString barId = w.latencyChart()->candidateIds().first();
        emit w.latencyChart()->candidateClicked(barId);
        QCOMPARE(w.candidateView()->currentCandidateId(), barId);
        w.selectCandidate(QStringLiteral("c0003"));
        w.findChild<QDockWidget *>(QStringLiteral("dockDiff"))->raise();
        QTRY_VERIFY(!w.findChild<QDockWidget *>(QStringLiteral("dockDiff"))->visibleRegion().isEmpty());
        w.selectCandidate(QStringLiteral("c0002"));
        w.selectCandidate(QStringLiteral("c0003"));
        const Candidate *c3 = w.run().candidate(QStringLiteral("c0003"));
        QVERIFY(c3);
        if (!c3->parentId.isEmpty()) {
            QCOMPARE(w.diffView()->rightId(), QStringLiteral("c0003"));
            QCOMPARE(w.diffView()->leftId(), c3->parentId);
        }
        // The GPU status is in the status bar (this machine: "no NVIDIA GPU ...").
        QVERIFY(w.gpuStatus() && w.gpuStatus()->isVisible());
        if (const QByteArray dir = qgetenv("KWB_SCREENSHOT_DIR"); !dir.isEmpty()) {
            QDir().mkpath(QString::fromLocal8Bit(dir));
            const QString file = QDir(QString::fromLocal8Bit(dir)).filePath(QStringLiteral("mainwindow.png"));
            QVERIFY(w.grab().save(file));
            qInfo("screenshot: %s", qPrintable(file));
        }
    }

    void badDirectoryChangesNothing()
    {
        MainWindow w;
        w.setInteractive(false);
        QSignalSpy opened(&w, &MainWindow::runOpened);
        QSignalSpy failed(&w, &MainWindow::runOpenFailed);
        w.openRun(m_fixture.dir);
        QVERIFY(opened.wait(10000));
        w.selectCandidate(QStringLiteral("c0005"));

        const QString notARun = m_tmp.filePath(QStringLiteral("not-a-run"));
        QDir().mkpath(notARun);
        w.openRun(notARun);
        QVERIFY(failed.wait(10000));
        QVERIFY(!failed.last().at(1).toString().isEmpty()); // the store's own explanation
        w.openRun(m_tmp.filePath(QStringLiteral("missing")));
        QVERIFY(failed.wait(10000));
        QCOMPARE(opened.count(), 1);
        QCOMPARE(w.runDirectory(), QFileInfo(m_fixture.dir).absoluteFilePath());
        QCOMPARE(w.run().candidates.size(), 5);
        QCOMPARE(w.candidateView()->currentCandidateId(), QStringLiteral("c0005"));
        QCOMPARE(w.codeView()->candidateId(), QStringLiteral("c0005"));
    }

    void rememberThemeLayoutAndLastRun()
    {
        {
            MainWindow w;
            w.setInteractive(false);
            QSignalSpy opened(&w, &MainWindow::runOpened);
            w.openRun(m_fixture.dir);
            QVERIFY(opened.wait(10000));
            w.setTheme(theme::Theme::Dark);
            w.findChild<QDockWidget *>(QStringLiteral("dockVerdicts"))->hide();
            w.candidateView()->treeView()->setColumnWidth(CandidateTreeModel::StatusColumn, 333);
            w.close();
        }
        QCOMPARE(MainWindow::lastRunDirectory(), QFileInfo(m_fixture.dir).absoluteFilePath());
        MainWindow again;
        QCOMPARE(theme::current(), theme::Theme::Dark);
        QVERIFY(again.findChild<QDockWidget *>(QStringLiteral("dockVerdicts"))->isHidden());
        QCOMPARE(again.candidateView()->treeView()->columnWidth(CandidateTreeModel::StatusColumn), 333);
        again.setTheme(theme::Theme::Light);
    }

    void demoAndRecentRunsAreListedWhileOpen()
    {
        // The demo lives outside the runs folder: the panel lists it (and marks it open), and a run
        // opened from elsewhere stays under "recent" for the next session.
        QString why;
        const QString demo = MainWindow::demoRunDirectory(&why);
        if (demo.isEmpty())
            QSKIP(qPrintable(why));
        QTemporaryDir elsewhere;
        const fixture::StandardRun other = fixture::writeFailingRun(elsewhere.path());
        {
            MainWindow w;
            w.setInteractive(false);
            QSignalSpy refreshed(w.runsDock(), &RunsDock::refreshed);
            w.runsDock()->refresh();
            QVERIFY(refreshed.wait(10000));
            QSignalSpy opened(&w, &MainWindow::runOpened);
            QVERIFY(w.openDemo());
            QVERIFY(opened.wait(10000));
            const QStringList demos = w.runsDock()->runsIn(RunsDock::Group::Demo);
            QVERIFY(demos.size() >= 1);
            QVERIFY(demos.contains(QFileInfo(w.runDirectory()).absoluteFilePath()));
            QVERIFY(w.runsDock()->currentRunText().contains(QFileInfo(w.runDirectory()).fileName()));
            w.openRun(other.dir);
            QVERIFY(opened.wait(10000));
            QCOMPARE(w.runsDock()->runsIn(RunsDock::Group::Recent), QStringList{QFileInfo(other.dir).absoluteFilePath()});
            w.close();
        }
        MainWindow again;
        QSignalSpy refreshed(again.runsDock(), &RunsDock::refreshed);
        again.runsDock()->refresh();
        QVERIFY(refreshed.wait(10000));
        QCOMPARE(again.runsDock()->runsIn(RunsDock::Group::Recent), QStringList{QFileInfo(other.dir).absoluteFilePath()});
        // The task list starts with the recurrent tasks (level 3), all of them listed.
        QTreeWidget *tasks = again.runsDock()->taskTree();
        QVERIFY(tasks->topLevelItemCount() > 0);
        QCOMPARE(tasks->topLevelItem(0)->text(0), QStringLiteral("Level 3"));
        QVERIFY(tasks->topLevelItem(0)->childCount() >= 8);
    }

    void nothingNeededIsCutAtSmallAndLargeSizes_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::newRow("1280x720") << QSize(1280, 720);
        QTest::newRow("1920x1080") << QSize(1920, 1080);
    }

    void nothingNeededIsCutAtSmallAndLargeSizes()
    {
        QFETCH(QSize, size);
        QTemporaryDir config;
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, config.path()); // first-start layout
        QTemporaryDir runs;
        const fixture::StandardRun failing = fixture::writeFailingRun(runs.path());
        MainWindow w;
        w.setInteractive(false);
        w.resize(size);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QCOMPARE(w.size(), size); // the docks' minimum sizes fit the window
        QSignalSpy opened(&w, &MainWindow::runOpened);
        w.openRun(failing.dir);
        QVERIFY(opened.wait(10000));
        w.selectCandidate(QStringLiteral("c0005"));

        // The candidate tree shows both speedup columns whole, without scrolling.
        QTreeView *tree = w.candidateView()->treeView();
        QHeaderView *header = tree->header();
        for (int column : {int(CandidateTreeModel::NameColumn), int(CandidateTreeModel::StatusColumn),
                           int(CandidateTreeModel::ScoreGraphColumn), int(CandidateTreeModel::ScoreEagerColumn)}) {
            const int right = header->sectionViewportPosition(column) + header->sectionSize(column);
            QVERIFY2(header->sectionViewportPosition(column) >= 0 && right <= tree->viewport()->width(),
                     qPrintable(QStringLiteral("column %1 ends at %2 of %3").arg(column).arg(right).arg(tree->viewport()->width())));
        }
        // The GPU status is not cut (its long reason is in the tooltip).
        QTRY_VERIFY(!w.gpuStatus()->text().endsWith(QStringLiteral("…")) && w.gpuStatus()->text() != QStringLiteral("GPU: …"));
        QVERIFY(w.gpuStatus()->width() >= w.gpuStatus()->sizeHint().width());
        // Verdict names fit their column.
        w.findChild<QDockWidget *>(QStringLiteral("dockVerdicts"))->raise();
        w.selectCandidate(QStringLiteral("c0005"));
        QTreeWidget *verdicts = w.verdictsView()->treeWidget();
        QTRY_VERIFY(verdicts->isVisible());
        int named = 0;
        for (int i = 0; i < verdicts->topLevelItemCount(); ++i) {
            QTreeWidgetItem *section = verdicts->topLevelItem(i);
            for (int j = 0; j < section->childCount(); ++j) {
                QTreeWidgetItem *item = section->child(j);
                const QRect r = verdicts->visualItemRect(item);
                const int need = verdicts->fontMetrics().horizontalAdvance(item->text(0)) + verdicts->iconSize().width() + 8;
                QVERIFY2(verdicts->columnWidth(0) - (r.left() - verdicts->visualItemRect(section).left()) >= need,
                         qPrintable(item->text(0)));
                QVERIFY(item->toolTip(0).contains(item->text(0)));
                ++named;
            }
        }
        QVERIFY(named > 0);
        // One place with the evaluation: peak memory, both errors, the flagged run-time check.
        const QString details = w.evalDetailsView()->plainText();
        QVERIFY(details.contains(QStringLiteral("281.00 MiB")));
        QVERIFY(details.contains(QStringLiteral("runtime.implausible_speedup")));
        if (const QByteArray dir = qgetenv("KWB_SCREENSHOT_DIR"); !dir.isEmpty()) {
            QDir().mkpath(QString::fromLocal8Bit(dir));
            QVERIFY(w.grab().save(QDir(QString::fromLocal8Bit(dir))
                                      .filePath(QStringLiteral("mainwindow-failing-%1x%2.png").arg(size.width()).arg(size.height()))));
        }
        w.close();
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, m_tmp.filePath(QStringLiteral("config")));
    }

    void shortcutsAreListedFromTheActions()
    {
        MainWindow w;
        const QList<QAction *> actions = w.shortcutActions();
        const auto rows = ShortcutsDialog::rows(actions);
        QCOMPARE(rows.size(), actions.size());
        auto has = [&](const QString &text, const QKeySequence &key) {
            for (const auto &[t, k] : rows)
                if (t == text && k == key.toString(QKeySequence::NativeText))
                    return true;
            return false;
        };
        QVERIFY(has(QStringLiteral("Open run"), QKeySequence::Open));
        QVERIFY(has(QStringLiteral("Approve"), QKeySequence(Qt::CTRL | Qt::Key_Return)));
        QVERIFY(has(QStringLiteral("Filter candidates"), QKeySequence::Find));
        QVERIFY(has(QStringLiteral("New run"), QKeySequence::New));
        QVERIFY(has(QStringLiteral("Export report"), QKeySequence(Qt::CTRL | Qt::Key_E)));
        QVERIFY(has(QStringLiteral("Next change"), QKeySequence(Qt::ALT | Qt::Key_Down))); // the diff view's
        // No two window-wide actions share a key (Qt would fire neither).
        QSet<QString> keys;
        for (QAction *a : actions)
            if (a->shortcutContext() == Qt::WindowShortcut) {
                const QString k = a->shortcut().toString();
                QVERIFY2(!keys.contains(k), qPrintable(k));
                keys.insert(k);
            }
        // A new action with a shortcut shows up without touching the dialog.
        auto *extra = new QAction(QStringLiteral("&Brand new"), &w);
        extra->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_9));
        const auto more = ShortcutsDialog::rows(QList<QAction *>(actions) << extra);
        QCOMPARE(more.last().first, QStringLiteral("Brand new"));
        ShortcutsDialog dialog(actions);
        QCOMPARE(dialog.findChild<QObject *>() != nullptr, true);
    }
};

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
