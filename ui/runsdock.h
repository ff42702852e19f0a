// SPDX-License-Identifier: MIT
#pragma once

#include <QStringList>
#include <QWidget>

class QSplitter;
class QTreeWidget;
class QTreeWidgetItem;

namespace kwb {

class ElidedLabel;

/// The "Runs and tasks" panel: the run on display (wherever it lives), the runs under the runs
/// folder, the bundled demo runs, the runs opened recently elsewhere, and the task library
/// (the level-3 recurrent tasks first). The folders are listed off the UI thread. Activating a run
/// asks to open it (runActivated).
class RunsDock : public QWidget
{
    Q_OBJECT
public:
    /// The groups of the run tree, in display order.
    enum class Group { RunsFolder, Demo, Recent };
    static constexpr int kMaxRecent = 10;

    explicit RunsDock(QWidget *parent = nullptr);

    void setRunsDir(const QString &dir);
    QString runsDir() const { return m_runsDir; }
    /// Where the bundled demo runs are (default: the resources' demo folder).
    void setDemoDir(const QString &dir);
    QString demoDir() const { return m_demoDir; }
    /// Runs opened before, most recent first (the window keeps them in its settings).
    void setRecentRuns(const QStringList &dirs);
    QStringList recentRuns() const { return m_recent; }

    QTreeWidget *runTree() const { return m_runs; }
    QTreeWidget *taskTree() const { return m_tasks; }
    /// The run directories listed under a group, in display order.
    QStringList runsIn(Group group) const;
    /// The line naming the run on display.
    QString currentRunText() const;
    /// The runs/tasks split from an earlier session; false (and the automatic split) when none.
    bool restoreSplitterState(const QByteArray &state);

public slots:
    /// Lists the runs and tasks again.
    void refresh();
    /// Marks the run on display and puts it first among the recent runs.
    void setCurrentRun(const QString &dir);

signals:
    void runActivated(const QString &dir);
    void taskActivated(const QString &taskFile);
    void openRunRequested();
    /// Both lists are filled (tests wait for it).
    void refreshed();

protected:
    void resizeEvent(QResizeEvent *event) override;

private:
    void fillRuns();
    void fillTasks(const QList<QStringList> &tasks);
    QTreeWidgetItem *group(Group g) const;
    QString whereIs(const QString &dir) const;

    QString m_runsDir;
    QString m_demoDir;
    QString m_currentRun;
    QStringList m_recent;
    QStringList m_folderRuns; ///< as last listed
    QStringList m_demoRuns;
    ElidedLabel *m_current;
    QTreeWidget *m_runs;
    QTreeWidget *m_tasks;
    QSplitter *m_split;
    bool m_splitFixed = false; ///< restored or moved by a person: the split is theirs
    quint64 m_generation = 0;
    int m_pendingLists = 0;
};

} // namespace kwb
