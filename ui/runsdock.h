// SPDX-License-Identifier: MIT
#pragma once

#include <QWidget>

class QLabel;
class QListWidget;
class QTreeWidget;

namespace kwb {

/// The "Runs and tasks" panel: past runs under the runs folder and the task library. Both lists
/// are gathered off the UI thread. Double-clicking a run asks to open it (runActivated).
class RunsDock : public QWidget
{
    Q_OBJECT
public:
    explicit RunsDock(QWidget *parent = nullptr);

    void setRunsDir(const QString &dir);
    QString runsDir() const { return m_runsDir; }
    QListWidget *runList() const { return m_runs; }
    QTreeWidget *taskTree() const { return m_tasks; }

public slots:
    /// Lists the runs and tasks again.
    void refresh();
    /// Marks the run on display.
    void setCurrentRun(const QString &dir);

signals:
    void runActivated(const QString &dir);
    void taskActivated(const QString &taskFile);
    void openRunRequested();
    /// Both lists are filled (tests wait for it).
    void refreshed();

private:
    void fillRuns(const QStringList &dirs);
    void fillTasks(const QList<QStringList> &tasks);

    QString m_runsDir;
    QString m_currentRun;
    QLabel *m_runsLabel;
    QListWidget *m_runs;
    QTreeWidget *m_tasks;
    quint64 m_generation = 0;
    int m_pendingLists = 0;
};

} // namespace kwb
