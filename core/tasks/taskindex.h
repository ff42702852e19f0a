// SPDX-License-Identifier: MIT
#pragma once

#include "tasks/task.h"

#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace kwb {

/// The task library: every KernelBench-format file found in the shipped tasks/ folder and in
/// folders the user adds. Files that are not tasks are remembered with the reason, not listed.
class TaskIndex
{
public:
    /// An index of env::tasksDir() when `withShipped`, else an empty one.
    explicit TaskIndex(bool withShipped = false);

    /// Scans `dir` recursively for *.py task files (later duplicates of a name are kept too).
    void addDirectory(const QString &dir);
    /// Adds one file; false (and `error`) when it is not a task.
    bool addFile(const QString &path, QString *error = nullptr);

    /// All tasks, sorted by level, then by the number prefix, then by name.
    QList<Task> tasks() const;
    /// "path: reason" for each *.py file that was skipped because it is not a task.
    QStringList problems() const { return m_problems; }

    /// By exact name ("39_GRU"), by file path, or by a unique case-insensitive name.
    std::optional<Task> find(const QString &nameOrPath) const;

    /// Reads one task file. Errors: missing/unreadable file, or no `class Model`, `get_inputs`,
    /// `get_init_inputs` (the message names what is missing).
    static std::optional<Task> fromFile(const QString &path, QString *error = nullptr);
    /// What a person types for a task: an existing file (read with fromFile), else a name from the
    /// shipped library. Error: "no task file or task named '…'", or fromFile's.
    static std::optional<Task> resolve(const QString &fileOrName, QString *error = nullptr);

    /// Family from the source: nn.GRU → gru, nn.LSTM → lstm, matmul, softmax, elementwise, other.
    static QString familyOf(const QString &source);
    /// Level from the path: a "levelN" / "level_N" folder, else an "lN_" / "levelN_" file prefix; 0 if none.
    static int levelOf(const QString &path);

private:
    QList<Task> m_tasks;
    QStringList m_problems;
};

} // namespace kwb
