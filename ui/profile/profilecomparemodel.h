// SPDX-License-Identifier: MIT
#pragma once

#include "model/profile.h"

#include <QAbstractTableModel>
#include <QList>

namespace kwb {

/// Two profiles side by side as a table (metric, before, after, change), the rows of
/// kwb::compareProfiles(): changes of 5% or more are marked better (green), worse (red) or moved
/// (amber). With only one profile the "before" column stays empty.
class ProfileCompareModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { MetricColumn, BeforeColumn, AfterColumn, ChangeColumn, ColumnCount };
    enum Role {
        ChangeRole = Qt::UserRole + 1, ///< int(ProfileRow::Change) of the row
        KeyRole, ///< QString: the metric key
    };

    explicit ProfileCompareModel(QObject *parent = nullptr);

    /// Compares `before` (may be null: one profile alone) with `after`; the headers name both.
    void setProfiles(const KernelProfile *before, const QString &beforeName, const KernelProfile *after,
                     const QString &afterName);
    void clear();
    const QList<ProfileRow> &rows() const { return m_rows; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QList<ProfileRow> m_rows;
    QString m_beforeName;
    QString m_afterName;
};

} // namespace kwb
