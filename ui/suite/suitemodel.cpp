// SPDX-License-Identifier: MIT
#include "suite/suitemodel.h"

#include <QBrush>
#include <QColor>

#include <cmath>

namespace kwb {

namespace {
QString speed(double v)
{
    return std::isfinite(v) ? QStringLiteral("%1x").arg(v, 0, 'f', 2) : QStringLiteral("–");
}
QVariant sortNumber(double v)
{
    return std::isfinite(v) ? v : -1.0;
}
} // namespace

SuiteModel::SuiteModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void SuiteModel::setEntries(const QList<suite::SuiteEntry> &entries)
{
    bool sameTasks = entries.size() == m_entries.size();
    for (int i = 0; sameTasks && i < entries.size(); ++i)
        sameTasks = entries.at(i).taskFile == m_entries.at(i).taskFile;
    if (sameTasks) {
        for (int i = 0; i < entries.size(); ++i)
            if (!(entries.at(i) == m_entries.at(i)))
                updateEntry(i, entries.at(i));
        return;
    }
    beginResetModel();
    m_entries = entries;
    endResetModel();
}

void SuiteModel::updateEntry(int index, const suite::SuiteEntry &entry)
{
    if (index < 0)
        return;
    if (index >= m_entries.size()) {
        beginInsertRows({}, int(m_entries.size()), index);
        while (m_entries.size() <= index)
            m_entries.append(suite::SuiteEntry{});
        m_entries[index] = entry;
        endInsertRows();
        return;
    }
    m_entries[index] = entry;
    emit dataChanged(this->index(index, 0), this->index(index, ColumnCount - 1));
}

const suite::SuiteEntry *SuiteModel::entryAt(int row) const
{
    return row >= 0 && row < m_entries.size() ? &m_entries.at(row) : nullptr;
}

int SuiteModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_entries.size());
}

int SuiteModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant SuiteModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const suite::SuiteEntry &e = m_entries.at(index.row());
    if (role == FailingRole)
        return e.done() && e.failing();
    if (role == FlaggedRole)
        return e.flagged();
    if (role == Qt::DisplayRole || role == SortRole) {
        const bool sort = role == SortRole;
        switch (index.column()) {
        case Task: return e.taskName;
        case Level: return sort ? QVariant(e.level) : QVariant(e.level > 0 ? QString::number(e.level) : QStringLiteral("–"));
        case State: return toName(e.state);
        case VsEager: return sort ? sortNumber(e.speedupVsEager) : QVariant(speed(e.speedupVsEager));
        case VsGraph: return sort ? sortNumber(e.speedupVsGraph) : QVariant(speed(e.speedupVsGraph));
        case Correct:
            if (sort)
                return e.correct ? 1 : 0;
            return e.done() || e.correct ? (e.correct ? tr("yes") : tr("no")) : QStringLiteral("–");
        case Flags: return sort ? QVariant(int(e.integrityFlags.size())) : QVariant(e.integrityFlags.join(QStringLiteral(", ")));
        case Candidates: return e.candidates;
        case Tokens: return sort ? QVariant(e.tokens) : QVariant(QLocale().toString(e.tokens));
        case Cost: return sort ? QVariant(e.costUsd) : QVariant(QStringLiteral("$%1").arg(e.costUsd, 0, 'f', 4));
        case Time: return sort ? QVariant(e.wallSeconds) : QVariant(QStringLiteral("%1 s").arg(e.wallSeconds, 0, 'f', 1));
        case Reason: return e.failureReason;
        default: return {};
        }
    }
    if (role == Qt::TextAlignmentRole && index.column() >= VsEager && index.column() != Flags && index.column() != Reason
        && index.column() != Correct)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole) {
        if (index.column() == Reason || index.column() == State)
            return e.failureReason.isEmpty() ? QVariant() : QVariant(e.failureReason);
        if (index.column() == Task)
            return e.taskFile;
        if (index.column() == Flags && e.flagged())
            return tr("Integrity violations found in this run: %1").arg(e.integrityFlags.join(QStringLiteral(", ")));
    }
    if (role == Qt::ForegroundRole) {
        if (index.column() == State && e.done() && e.failing())
            return QBrush(QColor(0xc0, 0x39, 0x2b));
        if (index.column() == Flags && e.flagged())
            return QBrush(QColor(0xd3, 0x54, 0x00));
    }
    return {};
}

QVariant SuiteModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Task: return tr("Task");
    case Level: return tr("Level");
    case State: return tr("State");
    case VsEager: return tr("vs eager");
    case VsGraph: return tr("vs graph");
    case Correct: return tr("Correct");
    case Flags: return tr("Integrity flags");
    case Candidates: return tr("Candidates");
    case Tokens: return tr("Tokens");
    case Cost: return tr("Cost");
    case Time: return tr("Time");
    case Reason: return tr("Reason");
    default: return {};
    }
}

SuiteFilterModel::SuiteFilterModel(QObject *parent)
    : QSortFilterProxyModel(parent)
{
    setSortRole(SuiteModel::SortRole);
    setDynamicSortFilter(true);
}

void SuiteFilterModel::setShow(Show show)
{
    if (show == m_show)
        return;
    m_show = show;
    invalidateFilter();
}

void SuiteFilterModel::setText(const QString &text)
{
    if (text == m_text)
        return;
    m_text = text;
    invalidateFilter();
}

bool SuiteFilterModel::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    const QAbstractItemModel *m = sourceModel();
    if (m_show == Show::Failing && !m->index(sourceRow, 0, sourceParent).data(SuiteModel::FailingRole).toBool())
        return false;
    if (m_show == Show::Flagged && !m->index(sourceRow, 0, sourceParent).data(SuiteModel::FlaggedRole).toBool())
        return false;
    if (m_text.isEmpty())
        return true;
    for (int c : {SuiteModel::Task, SuiteModel::State, SuiteModel::Flags, SuiteModel::Reason})
        if (m->index(sourceRow, c, sourceParent).data().toString().contains(m_text, Qt::CaseInsensitive))
            return true;
    return false;
}

} // namespace kwb
