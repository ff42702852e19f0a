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

#include <QAction>
#include <QDir>
#include <QDockWidget>
#include <QListWidget>
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
        // The runs list (filled off the UI thread) shows the run.
        QListWidget *runs = w.runsDock()->runList();
        QTRY_VERIFY(runs->count() == 1 && runs->item(0)->text() == QFileInfo(m_fixture.dir).fileName());
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
