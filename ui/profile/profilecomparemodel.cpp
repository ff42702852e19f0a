// SPDX-License-Identifier: MIT
#include "profilecomparemodel.h"

#include <QBrush>
#include <QColor>
#include <QFont>

namespace kwb {

ProfileCompareModel::ProfileCompareModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void ProfileCompareModel::setProfiles(const KernelProfile *before, const QString &beforeName, const KernelProfile *after,
                                      const QString &afterName)
{
    beginResetModel();
    m_rows = after ? compareProfiles(before ? *before : KernelProfile(), *after) : QList<ProfileRow>();
    m_beforeName = before ? beforeName : QString();
    m_afterName = afterName;
    endResetModel();
    emit headerDataChanged(Qt::Horizontal, 0, ColumnCount - 1);
}

void ProfileCompareModel::clear()
{
    setProfiles(nullptr, {}, nullptr, {});
}

int ProfileCompareModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int ProfileCompareModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ProfileCompareModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= m_rows.size())
        return {};
    const ProfileRow &r = m_rows.at(index.row());
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case MetricColumn:
            return r.label;
        case BeforeColumn:
            return m_beforeName.isEmpty() ? QString() : r.beforeText;
        case AfterColumn:
            return r.afterText;
        case ChangeColumn:
            return m_beforeName.isEmpty() ? QString() : changeText(r);
        }
        return {};
    case Qt::ToolTipRole:
        return index.column() == MetricColumn ? QVariant(r.key) : QVariant();
    case ChangeRole:
        return int(r.change);
    case KeyRole:
        return r.key;
    case Qt::ForegroundRole:
        if (index.column() != ChangeColumn || m_beforeName.isEmpty())
            return {};
        switch (r.change) {
        case ProfileRow::Change::Better:
            return QBrush(QColor(0x2e, 0xa0, 0x43));
        case ProfileRow::Change::Worse:
            return QBrush(QColor(0xd0, 0x33, 0x33));
        case ProfileRow::Change::Changed:
            return QBrush(QColor(0xb0, 0x7a, 0x00));
        case ProfileRow::Change::None:
            break;
        }
        return {};
    case Qt::FontRole:
        if (r.key == QLatin1String("roofline") || (r.change != ProfileRow::Change::None && !m_beforeName.isEmpty())) {
            QFont f;
            f.setBold(true);
            return f;
        }
        return {};
    case Qt::TextAlignmentRole:
        return index.column() == MetricColumn ? QVariant() : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    }
    return {};
}

QVariant ProfileCompareModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case MetricColumn:
        return tr("Metric");
    case BeforeColumn:
        return m_beforeName.isEmpty() ? tr("Before") : m_beforeName;
    case AfterColumn:
        return m_afterName.isEmpty() ? tr("After") : m_afterName;
    case ChangeColumn:
        return tr("Change");
    }
    return {};
}

} // namespace kwb
