// SPDX-License-Identifier: MIT
#include "runsdock.h"

#include "elidedlabel.h"
#include "env/locations.h"
#include "store/runstore.h"
#include "tasks/taskindex.h"

#include <QDir>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QPushButton>
#include <QSplitter>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <QtConcurrentRun>

#include <algorithm>

namespace kwb {

namespace {
constexpr int kPathRole = Qt::UserRole + 1;

QString absolute(const QString &dir)
{
    return dir.isEmpty() ? QString() : QFileInfo(dir).absoluteFilePath();
}
} // namespace

RunsDock::RunsDock(QWidget *parent)
    : QWidget(parent)
    , m_current(new ElidedLabel(this))
    , m_runs(new QTreeWidget(this))
    , m_tasks(new QTreeWidget(this))
{
    m_current->setObjectName(QStringLiteral("currentRun"));
    QFont bold = m_current->font();
    bold.setBold(true);
    m_current->setFont(bold);
    m_runs->setObjectName(QStringLiteral("runTree"));
    m_runs->setHeaderHidden(true);
    m_runs->setIndentation(12);
    m_runs->setTextElideMode(Qt::ElideMiddle); // run names differ at both ends: date and task
    m_tasks->setObjectName(QStringLiteral("taskTree"));
    m_tasks->setHeaderLabels({tr("Task"), tr("Family")});
    m_tasks->setIndentation(12);
    m_tasks->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_tasks->header()->setStretchLastSection(false);
    m_tasks->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);

    for (const QString &title : {tr("Runs folder"), tr("Demo runs"), tr("Recent")}) {
        auto *g = new QTreeWidgetItem(m_runs, {title});
        g->setFlags(Qt::ItemIsEnabled);
        QFont f = g->font(0);
        f.setBold(true);
        g->setFont(0, f);
    }

    auto *open = new QPushButton(tr("Open run…"), this);
    auto *refresh = new QPushButton(tr("Refresh"), this);
    connect(open, &QPushButton::clicked, this, &RunsDock::openRunRequested);
    connect(refresh, &QPushButton::clicked, this, &RunsDock::refresh);
    connect(m_runs, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem *item) {
        const QString path = item->data(0, kPathRole).toString();
        if (!path.isEmpty())
            emit runActivated(path);
    });
    connect(m_tasks, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem *item) {
        const QString path = item->data(0, kPathRole).toString();
        if (!path.isEmpty())
            emit taskActivated(path);
    });

    auto *runsBox = new QWidget(this);
    auto *runsLayout = new QVBoxLayout(runsBox);
    runsLayout->setContentsMargins(0, 0, 0, 0);
    runsLayout->setSpacing(2);
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_current, 1);
    buttons->addWidget(open);
    buttons->addWidget(refresh);
    runsLayout->addLayout(buttons);
    runsLayout->addWidget(m_runs);

    m_split = new QSplitter(Qt::Vertical, this);
    m_split->setObjectName(QStringLiteral("runsSplitter"));
    m_split->addWidget(runsBox);
    m_split->addWidget(m_tasks);
    m_split->setChildrenCollapsible(false);
    connect(m_split, &QSplitter::splitterMoved, this, [this] { m_splitFixed = true; });
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_split);
    setRunsDir(env::runsDir());
    setDemoDir(env::resourcesDir() + QStringLiteral("/demo"));
    setCurrentRun({});
}

bool RunsDock::restoreSplitterState(const QByteArray &state)
{
    m_splitFixed = !state.isEmpty() && m_split->restoreState(state);
    return m_splitFixed;
}

void RunsDock::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    if (m_splitFixed || height() <= 0)
        return;
    // Until a person moves the split: the task list gets what the eight recurrent tasks and their
    // heading need (ten rows and the header), the runs the rest, but at least a third.
    const int total = height(); // the splitter fills the panel (no margins)
    const int row = m_tasks->fontMetrics().height() + 4;
    const int tasks = std::clamp(11 * row + 8, total / 2, total * 2 / 3);
    m_split->setSizes({total - tasks, tasks});
}

QTreeWidgetItem *RunsDock::group(Group g) const
{
    return m_runs->topLevelItem(int(g));
}

void RunsDock::setRunsDir(const QString &dir)
{
    m_runsDir = dir;
    group(Group::RunsFolder)->setToolTip(0, QDir::toNativeSeparators(dir));
}

void RunsDock::setDemoDir(const QString &dir)
{
    m_demoDir = dir;
    group(Group::Demo)->setToolTip(0, QDir::toNativeSeparators(dir));
}

void RunsDock::setRecentRuns(const QStringList &dirs)
{
    m_recent.clear();
    for (const QString &d : dirs)
        if (!d.isEmpty() && !m_recent.contains(absolute(d)) && m_recent.size() < kMaxRecent)
            m_recent.append(absolute(d));
    fillRuns();
}

QString RunsDock::whereIs(const QString &dir) const
{
    if (m_demoRuns.contains(dir))
        return tr("bundled demo");
    if (m_folderRuns.contains(dir))
        return tr("runs folder");
    return QDir::toNativeSeparators(QFileInfo(dir).absolutePath());
}

QString RunsDock::currentRunText() const
{
    return m_current->fullText();
}

void RunsDock::setCurrentRun(const QString &dir)
{
    m_currentRun = absolute(dir);
    if (!m_currentRun.isEmpty()) {
        m_recent.removeAll(m_currentRun);
        m_recent.prepend(m_currentRun);
        while (m_recent.size() > kMaxRecent)
            m_recent.removeLast();
    }
    fillRuns();
}

QStringList RunsDock::runsIn(Group g) const
{
    QStringList out;
    QTreeWidgetItem *item = group(g);
    for (int i = 0; i < item->childCount(); ++i)
        if (const QString p = item->child(i)->data(0, kPathRole).toString(); !p.isEmpty())
            out.append(p);
    return out;
}

void RunsDock::refresh()
{
    const quint64 generation = ++m_generation;
    m_pendingLists = 2;
    const QString runsDir = m_runsDir;
    const QString demoDir = m_demoDir;
    using Lists = QPair<QStringList, QStringList>;
    auto *runsWatcher = new QFutureWatcher<Lists>(this);
    connect(runsWatcher, &QFutureWatcher<Lists>::finished, this, [this, runsWatcher, generation] {
        runsWatcher->deleteLater();
        if (generation != m_generation)
            return;
        const Lists lists = runsWatcher->result();
        m_folderRuns = lists.first;
        m_demoRuns = lists.second;
        fillRuns();
        if (--m_pendingLists == 0)
            emit refreshed();
    });
    runsWatcher->setFuture(QtConcurrent::run([runsDir, demoDir] {
        auto list = [](const QString &dir) {
            QStringList out;
            for (const QString &d : store::listRuns(dir))
                out.append(absolute(d));
            return out;
        };
        return Lists(list(runsDir), list(demoDir));
    }));

    // Rows of (name, family, level, path): plain strings cross the thread boundary.
    auto *tasksWatcher = new QFutureWatcher<QList<QStringList>>(this);
    connect(tasksWatcher, &QFutureWatcher<QList<QStringList>>::finished, this, [this, tasksWatcher, generation] {
        tasksWatcher->deleteLater();
        if (generation != m_generation)
            return;
        fillTasks(tasksWatcher->result());
        if (--m_pendingLists == 0)
            emit refreshed();
    });
    tasksWatcher->setFuture(QtConcurrent::run([] {
        QList<QStringList> rows;
        const TaskIndex index(true);
        for (const Task &t : index.tasks())
            rows.append({t.name, t.family, QString::number(t.level), t.path});
        return rows;
    }));
}

void RunsDock::fillRuns()
{
    // The recent group lists what the other two do not: runs opened from anywhere else.
    QStringList recent;
    for (const QString &d : std::as_const(m_recent))
        if (!m_folderRuns.contains(d) && !m_demoRuns.contains(d) && QFileInfo(d).isDir())
            recent.append(d);
    const QList<QPair<Group, QStringList>> groups{
        {Group::RunsFolder, m_folderRuns}, {Group::Demo, m_demoRuns}, {Group::Recent, recent}};
    const QStringList titles{tr("Runs in %1 (%2)").arg(QDir::toNativeSeparators(m_runsDir)), tr("Demo runs (%2)"),
                             tr("Recent, elsewhere (%2)")};
    for (const auto &[g, dirs] : groups) {
        QTreeWidgetItem *parent = group(g);
        qDeleteAll(parent->takeChildren());
        parent->setText(0, titles.at(int(g)).arg(dirs.size()));
        for (const QString &dir : dirs) {
            auto *item = new QTreeWidgetItem(parent, {QFileInfo(dir).fileName()});
            item->setData(0, kPathRole, dir);
            item->setToolTip(0, QDir::toNativeSeparators(dir));
            if (dir == m_currentRun) {
                QFont f = item->font(0);
                f.setBold(true);
                item->setFont(0, f);
                item->setText(0, tr("▶ %1").arg(item->text(0)));
            }
        }
        if (dirs.isEmpty() && g == Group::RunsFolder) {
            auto *item = new QTreeWidgetItem(parent, {tr("(none yet in %1)").arg(QDir::toNativeSeparators(m_runsDir))});
            item->setFlags(Qt::NoItemFlags);
            item->setToolTip(0, item->text(0));
        }
        parent->setExpanded(true);
    }
    if (m_currentRun.isEmpty()) {
        m_current->setFullText(tr("No run open"));
    } else {
        m_current->setFullText(tr("Open: %1").arg(QFileInfo(m_currentRun).fileName()));
        m_current->setToolTip(tr("%1\n(%2)").arg(QDir::toNativeSeparators(m_currentRun), whereIs(m_currentRun)));
    }
}

void RunsDock::fillTasks(const QList<QStringList> &tasks)
{
    m_tasks->clear();
    QMap<int, QTreeWidgetItem *> levels;
    QList<QStringList> sorted = tasks;
    // The highest level first: level 3 holds the recurrent tasks this workbench is tuned for.
    std::stable_sort(sorted.begin(), sorted.end(), [](const QStringList &a, const QStringList &b) {
        const int la = a[2].toInt() == 0 ? -1 : a[2].toInt();
        const int lb = b[2].toInt() == 0 ? -1 : b[2].toInt();
        return la > lb;
    });
    for (const QStringList &t : sorted) {
        const int level = t[2].toInt();
        QTreeWidgetItem *&parent = levels[level];
        if (!parent) {
            parent = new QTreeWidgetItem(m_tasks, {level == 0 ? tr("Other tasks") : tr("Level %1").arg(level)});
            parent->setFirstColumnSpanned(true);
        }
        auto *item = new QTreeWidgetItem(parent, {t[0], t[1]});
        item->setData(0, kPathRole, t[3]);
        item->setToolTip(0, QDir::toNativeSeparators(t[3]));
        item->setToolTip(1, t[1]);
    }
    if (tasks.isEmpty())
        new QTreeWidgetItem(m_tasks, {tr("(no task files found)")});
    m_tasks->expandAll();
}

} // namespace kwb
