// SPDX-License-Identifier: MIT
#include "suite/suitedock.h"

#include "chart/latencychart.h"
#include "env/locations.h"
#include "mainwindow.h"
#include "suite/newsuitedialog.h"
#include "suite/suitemodel.h"
#include "suite/suitereport.h"
#include "suite/suiterunner.h"
#include "pipeline/pipeline.h"

#include <QDockWidget>
#include <QFileDialog>
#include <QMessageBox>

#include <QComboBox>
#include <QPointer>
#include <QDir>
#include <QFileInfo>
#include <QFileSystemWatcher>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

namespace kwb {

SuiteDock::SuiteDock(QWidget *parent)
    : QWidget(parent)
    , m_model(new SuiteModel(this))
    , m_filter(new SuiteFilterModel(this))
    , m_watcher(new QFileSystemWatcher(this))
{
    m_filter->setSourceModel(m_model);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    auto *bar = new QHBoxLayout;
    auto *newSuite = new QPushButton(tr("New suite…"), this);
    auto *open = new QPushButton(tr("Open suite…"), this);
    m_resume = new QPushButton(tr("Resume"), this);
    m_stop = new QPushButton(tr("Stop"), this);
    m_export = new QPushButton(tr("Export report"), this);
    m_show = new QComboBox(this);
    m_show->addItems({tr("All tasks"), tr("Failing only"), tr("Flagged only")});
    m_show->setObjectName(QStringLiteral("suiteShow"));
    m_text = new QLineEdit(this);
    m_text->setPlaceholderText(tr("Filter: task, state, flag, reason"));
    m_text->setClearButtonEnabled(true);
    m_text->setObjectName(QStringLiteral("suiteFilterText"));
    for (QWidget *w : std::initializer_list<QWidget *>{newSuite, open, m_resume, m_stop, m_export, m_show})
        bar->addWidget(w);
    bar->addWidget(m_text, 1);
    layout->addLayout(bar);
    m_progress = new QLabel(tr("No suite open"), this);
    m_progress->setObjectName(QStringLiteral("suiteProgress"));
    layout->addWidget(m_progress);
    m_table = new QTableView(this);
    m_table->setModel(m_filter);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(SuiteModel::Task, Qt::AscendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setAlternatingRowColors(true);
    layout->addWidget(m_table, 1);
    m_stop->setEnabled(false);
    m_resume->setEnabled(false);
    m_export->setEnabled(false);

    connect(newSuite, &QPushButton::clicked, this, &SuiteDock::newSuiteRequested);
    connect(open, &QPushButton::clicked, this, &SuiteDock::openSuiteRequested);
    connect(m_stop, &QPushButton::clicked, this, &SuiteDock::stopSuite);
    connect(m_resume, &QPushButton::clicked, this, [this] {
        const auto s = suite::readSuite(m_dir);
        if (!s)
            return;
        suite::SuiteConfig cfg = suite::SuiteConfig::fromJson(s->settings);
        cfg.suiteDir = m_dir;
        QString e;
        if (!startSuite(cfg, {}, &e))
            m_progress->setText(e);
    });
    connect(m_export, &QPushButton::clicked, this, [this] {
        QString e;
        const QStringList files = exportReport(&e);
        m_progress->setText(files.isEmpty() ? e : tr("Report written: %1").arg(files.join(QStringLiteral(", "))));
    });
    connect(m_show, &QComboBox::currentIndexChanged, this,
            [this](int i) { m_filter->setShow(static_cast<SuiteFilterModel::Show>(i)); });
    connect(m_text, &QLineEdit::textChanged, m_filter, &SuiteFilterModel::setText);
    connect(m_table, &QTableView::activated, this, &SuiteDock::onActivated);
    connect(m_watcher, &QFileSystemWatcher::fileChanged, this, &SuiteDock::reload);
    connect(m_watcher, &QFileSystemWatcher::directoryChanged, this, &SuiteDock::reload);
}

SuiteDock *SuiteDock::install(MainWindow *window)
{
    auto *view = new SuiteDock(window);
    auto *dock = new QDockWidget(tr("Suite"), window);
    dock->setObjectName(QStringLiteral("dockSuite")); // saveState() finds docks by name
    dock->setWidget(view);
    window->addDockWidget(Qt::BottomDockWidgetArea, dock);
    QDockWidget *chart = window->dockOf(window->latencyChart());
    if (chart)
        window->tabifyDockWidget(chart, dock);
    dock->hide();
    if (chart)
        chart->raise(); // hiding the suite's tab must not bring another (the profile) to the front
    auto showDock = [dock] {
        dock->show();
        dock->raise();
    };
    connect(view, &SuiteDock::suiteOpened, dock, showDock);
    // A task running in this window's suite is followed live (candidates, LLM streams) like a live
    // run; one at a time: the previous one is detached first. Others open from disk.
    auto attached = std::make_shared<QPointer<pipeline::Pipeline>>();
    connect(view, &SuiteDock::runActivated, window, [window, view, attached](const QString &dir) {
        if (pipeline::Pipeline *old = *attached) {
            old->disconnect(window);
            QObject::disconnect(window, nullptr, old, nullptr);
            *attached = nullptr;
        }
        if (pipeline::Pipeline *p = view->livePipeline(dir)) {
            *attached = p;
            window->attachPipeline(p, dir);
        } else {
            window->openRun(dir);
        }
    });
    connect(view, &SuiteDock::newSuiteRequested, view, [view] { view->newSuiteDialog(); });
    connect(view, &SuiteDock::openSuiteRequested, view, &SuiteDock::openSuiteDialog);
    return view;
}

void SuiteDock::newSuiteDialog(const QStringList &paths)
{
    auto *dlg = new NewSuiteDialog(env::runsDir(), this);
    dlg->setAttribute(Qt::WA_DeleteOnClose);
    dlg->setWindowModality(Qt::WindowModal);
    dlg->addTaskPaths(paths);
    connect(dlg, &QDialog::accepted, this, [this, dlg] {
        QString e;
        const QStringList tasks = dlg->taskFiles(&e);
        if (tasks.isEmpty() || !startSuite(dlg->config(), tasks, &e))
            QMessageBox::warning(this, tr("New suite"), tr("The suite did not start: %1").arg(e));
    });
    dlg->open();
}

void SuiteDock::openSuiteDialog()
{
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Open a suite folder (with suite.json)"), env::runsDir());
    if (dir.isEmpty())
        return;
    QString e;
    if (!openSuite(dir, &e))
        QMessageBox::warning(this, tr("Open suite"), e);
}

SuiteDock::~SuiteDock()
{
    if (m_runner)
        m_runner->abort();
}

bool SuiteDock::openSuite(const QString &dir, QString *error)
{
    const auto s = suite::readSuite(dir, error);
    if (!s)
        return false;
    if (m_runner && m_runner->isRunning() && QFileInfo(m_runner->config().suiteDir) != QFileInfo(dir)) {
        if (error)
            *error = tr("a suite is running here; stop it before opening another");
        return false;
    }
    if (!m_dir.isEmpty()) {
        m_watcher->removePaths(m_watcher->files());
        m_watcher->removePaths(m_watcher->directories());
    }
    m_dir = QFileInfo(dir).absoluteFilePath();
    m_model->setEntries(s->entries);
    // QSaveFile replaces the file: watch the folder too, and the new file after each change.
    m_watcher->addPath(m_dir);
    m_watcher->addPath(suite::suiteFile(m_dir));
    m_export->setEnabled(true);
    m_resume->setEnabled(!(m_runner && m_runner->isRunning()));
    updateProgress();
    emit suiteOpened(m_dir);
    return true;
}

void SuiteDock::reload()
{
    if (m_dir.isEmpty())
        return;
    if (!m_watcher->files().contains(suite::suiteFile(m_dir)) && QFileInfo::exists(suite::suiteFile(m_dir)))
        m_watcher->addPath(suite::suiteFile(m_dir));
    if (m_runner && m_runner->isRunning())
        return; // the runner's signals are the live source
    if (const auto s = suite::readSuite(m_dir))
        m_model->setEntries(s->entries);
    updateProgress();
}

bool SuiteDock::startSuite(const suite::SuiteConfig &config, const QStringList &taskFiles, QString *error)
{
    if (m_runner && m_runner->isRunning()) {
        if (error)
            *error = tr("a suite is already running here");
        return false;
    }
    delete m_runner;
    m_runner = nullptr;
    auto *runner = new suite::SuiteRunner(config, this);
    connect(runner, &suite::SuiteRunner::entryChanged, this, [this](int i, const suite::SuiteEntry &e) {
        m_model->updateEntry(i, e);
        updateProgress();
    });
    connect(runner, &suite::SuiteRunner::finished, this, [this] {
        m_stop->setEnabled(false);
        m_resume->setEnabled(true);
        updateProgress();
        emit suiteFinished();
    });
    const bool ok = taskFiles.isEmpty() ? runner->resume(error) : runner->start(taskFiles, error);
    if (!ok) {
        delete runner;
        return false;
    }
    m_runner = runner;
    m_stop->setEnabled(true);
    m_resume->setEnabled(false);
    openSuite(config.suiteDir);
    m_model->setEntries(runner->suite().entries);
    updateProgress();
    return true;
}

void SuiteDock::stopSuite()
{
    if (m_runner)
        m_runner->stop();
}

QStringList SuiteDock::exportReport(QString *error)
{
    const auto s = suite::readSuite(m_dir, error);
    if (!s)
        return {};
    return suite::writeSuiteReports(m_dir, *s, error);
}

QString SuiteDock::progressText() const
{
    suite::Suite s;
    s.entries = m_model->entries();
    const auto t = suite::totals(s);
    int failing = 0;
    for (const auto &e : s.entries)
        failing += e.done() && e.failing();
    return tr("%1 — %2/%3 done, %4 running, %5 failing, %6 correct, %7 flagged")
        .arg(QDir(m_dir).dirName())
        .arg(t.done)
        .arg(t.tasks)
        .arg(t.running)
        .arg(failing)
        .arg(t.correct)
        .arg(t.flagged);
}

void SuiteDock::updateProgress()
{
    m_progress->setText(progressText());
}

pipeline::Pipeline *SuiteDock::livePipeline(const QString &runDir) const
{
    if (!m_runner || !m_runner->isRunning())
        return nullptr;
    for (int i = 0; i < m_runner->suite().entries.size(); ++i)
        if (QFileInfo(m_runner->runDirectoryOf(i)) == QFileInfo(runDir))
            return m_runner->pipelineOf(i);
    return nullptr;
}

void SuiteDock::openRow(int row)
{
    const QModelIndex index = m_filter->index(row, 0);
    if (!index.isValid())
        return;
    m_table->selectRow(row);
    onActivated(index);
}

void SuiteDock::onActivated(const QModelIndex &index)
{
    const auto *e = m_model->entryAt(m_filter->mapToSource(index).row());
    if (!e || e->runDir.isEmpty())
        return;
    emit runActivated(QDir(m_dir).absoluteFilePath(e->runDir));
}

} // namespace kwb
