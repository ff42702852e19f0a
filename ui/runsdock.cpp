// SPDX-License-Identifier: MIT
#include "runsdock.h"

#include "env/locations.h"
#include "store/runstore.h"
#include "tasks/taskindex.h"

#include <QDir>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QSplitter>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <QtConcurrent>

namespace kwb {

namespace {
constexpr int kPathRole = Qt::UserRole + 1;
} // namespace

RunsDock::RunsDock(QWidget *parent)
    : QWidget(parent)
    , m_runsLabel(new QLabel(this))
    , m_runs(new QListWidget(this))
    , m_tasks(new QTreeWidget(this))
{
    m_runs->setObjectName(QStringLiteral("runList"));
    m_tasks->setObjectName(QStringLiteral("taskTree"));
    m_runsLabel->setTextFormat(Qt::PlainText);
    m_runsLabel->setWordWrap(true);
    m_tasks->setHeaderLabels({tr("Task"), tr("Family")});
    m_tasks->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_tasks->header()->setStretchLastSection(false);
    m_tasks->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);

    auto *open = new QPushButton(tr("Open run…"), this);
    auto *refresh = new QPushButton(tr("Refresh"), this);
    connect(open, &QPushButton::clicked, this, &RunsDock::openRunRequested);
    connect(refresh, &QPushButton::clicked, this, &RunsDock::refresh);
    connect(m_runs, &QListWidget::itemActivated, this,
            [this](QListWidgetItem *item) { emit runActivated(item->data(kPathRole).toString()); });
    connect(m_tasks, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem *item) {
        const QString path = item->data(0, kPathRole).toString();
        if (!path.isEmpty())
            emit taskActivated(path);
    });

    auto *runsBox = new QWidget(this);
    auto *runsLayout = new QVBoxLayout(runsBox);
    runsLayout->setContentsMargins(0, 0, 0, 0);
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(open);
    buttons->addWidget(refresh);
    buttons->addStretch();
    runsLayout->addWidget(m_runsLabel);
    runsLayout->addLayout(buttons);
    runsLayout->addWidget(m_runs);

    auto *split = new QSplitter(Qt::Vertical, this);
    split->setObjectName(QStringLiteral("runsSplitter"));
    split->addWidget(runsBox);
    split->addWidget(m_tasks);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(split);
    setRunsDir(env::runsDir());
}

void RunsDock::setRunsDir(const QString &dir)
{
    m_runsDir = dir;
    m_runsLabel->setText(tr("Runs in %1").arg(QDir::toNativeSeparators(dir)));
}

void RunsDock::setCurrentRun(const QString &dir)
{
    m_currentRun = QFileInfo(dir).absoluteFilePath();
    for (int i = 0; i < m_runs->count(); ++i) {
        QListWidgetItem *item = m_runs->item(i);
        QFont f = item->font();
        f.setBold(item->data(kPathRole).toString() == m_currentRun);
        item->setFont(f);
    }
}

void RunsDock::refresh()
{
    const quint64 generation = ++m_generation;
    m_pendingLists = 2;
    const QString runsDir = m_runsDir;
    auto *runsWatcher = new QFutureWatcher<QStringList>(this);
    connect(runsWatcher, &QFutureWatcher<QStringList>::finished, this, [this, runsWatcher, generation] {
        runsWatcher->deleteLater();
        if (generation == m_generation)
            fillRuns(runsWatcher->result());
    });
    runsWatcher->setFuture(QtConcurrent::run([runsDir] { return store::listRuns(runsDir); }));

    // Rows of (name, family, level, path): plain strings cross the thread boundary.
    auto *tasksWatcher = new QFutureWatcher<QList<QStringList>>(this);
    connect(tasksWatcher, &QFutureWatcher<QList<QStringList>>::finished, this, [this, tasksWatcher, generation] {
        tasksWatcher->deleteLater();
        if (generation == m_generation)
            fillTasks(tasksWatcher->result());
    });
    tasksWatcher->setFuture(QtConcurrent::run([] {
        QList<QStringList> rows;
        const TaskIndex index(true);
        for (const Task &t : index.tasks())
            rows.append({t.name, t.family, QString::number(t.level), t.path});
        return rows;
    }));
}

void RunsDock::fillRuns(const QStringList &dirs)
{
    m_runs->clear();
    for (const QString &dir : dirs) {
        auto *item = new QListWidgetItem(QFileInfo(dir).fileName(), m_runs);
        item->setData(kPathRole, dir);
        item->setToolTip(QDir::toNativeSeparators(dir));
    }
    if (dirs.isEmpty()) {
        auto *item = new QListWidgetItem(tr("(no runs yet)"), m_runs);
        item->setFlags(Qt::NoItemFlags);
    }
    setCurrentRun(m_currentRun);
    if (--m_pendingLists == 0)
        emit refreshed();
}

void RunsDock::fillTasks(const QList<QStringList> &tasks)
{
    m_tasks->clear();
    QHash<QString, QTreeWidgetItem *> levels;
    for (const QStringList &t : tasks) {
        const QString level = t[2] == QLatin1String("0") ? tr("Other tasks") : tr("Level %1").arg(t[2]);
        QTreeWidgetItem *&parent = levels[level];
        if (!parent) {
            parent = new QTreeWidgetItem(m_tasks, {level});
            parent->setFirstColumnSpanned(true);
        }
        auto *item = new QTreeWidgetItem(parent, {t[0], t[1]});
        item->setData(0, kPathRole, t[3]);
        item->setToolTip(0, QDir::toNativeSeparators(t[3]));
    }
    if (tasks.isEmpty())
        new QTreeWidgetItem(m_tasks, {tr("(no task files found)")});
    m_tasks->expandAll();
    if (--m_pendingLists == 0)
        emit refreshed();
}

} // namespace kwb
