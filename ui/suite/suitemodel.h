// SPDX-License-Identifier: MIT
#pragma once

#include "suite/suite.h"

#include <QAbstractTableModel>
#include <QSortFilterProxyModel>

namespace kwb {

/// One row per task of a suite: task, level, state, best speedup vs eager and vs the CUDA graph,
/// correct, integrity flags, candidates, tokens, cost, time, reason. Sorting works on raw values
/// (Qt::UserRole); rows update in place as the suite progresses.
class SuiteModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { Task, Level, State, VsEager, VsGraph, Correct, Flags, Candidates, Tokens, Cost, Time, Reason, ColumnCount };
    static constexpr int SortRole = Qt::UserRole;
    static constexpr int FailingRole = Qt::UserRole + 1;
    static constexpr int FlaggedRole = Qt::UserRole + 2;

    explicit SuiteModel(QObject *parent = nullptr);

    /// Replaces every row (a suite opened or reloaded). Rows whose task is already shown are
    /// updated in place when the task list is the same, so views keep their selection.
    void setEntries(const QList<suite::SuiteEntry> &entries);
    /// Updates row `index` (entries keep the suite's order).
    void updateEntry(int index, const suite::SuiteEntry &entry);
    const QList<suite::SuiteEntry> &entries() const { return m_entries; }
    const suite::SuiteEntry *entryAt(int row) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QList<suite::SuiteEntry> m_entries;
};

/// Filters a SuiteModel: all, failing only, or flagged only; and a text that must appear in the
/// task, state, flags or reason (case-insensitive). Sorts on SuiteModel::SortRole.
class SuiteFilterModel : public QSortFilterProxyModel
{
    Q_OBJECT
public:
    enum class Show { All, Failing, Flagged };
    explicit SuiteFilterModel(QObject *parent = nullptr);
    void setShow(Show show);
    Show show() const { return m_show; }
    void setText(const QString &text);

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;

private:
    Show m_show = Show::All;
    QString m_text;
};

} // namespace kwb
