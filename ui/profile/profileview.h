// SPDX-License-Identifier: MIT
#pragma once

#include "model/run.h"

#include <QWidget>

class QComboBox;
class QLabel;
class QTableView;

namespace kwb {

class ProfileCompareModel;

/// The Nsight Compute profile of the selected candidate (roofline position, metrics, what profiling
/// cost) next to another candidate's: by default its nearest profiled ancestor (the parent whose
/// analysis led to it), or any candidate picked in "compared with". Changes are marked the way
/// Nsight Compute marks a result against a baseline.
class ProfileView : public QWidget
{
    Q_OBJECT
public:
    explicit ProfileView(QWidget *parent = nullptr);

    /// The run whose candidates can be picked; keeps the current pair when both still exist.
    void setRun(const Run &run);
    /// Shows `candidateId` against its nearest profiled ancestor (alone when none).
    void showCandidate(const QString &candidateId);
    /// Shows `afterId` against `beforeId` (empty: `afterId` alone).
    void compare(const QString &beforeId, const QString &afterId);

    QString beforeId() const;
    QString afterId() const;
    ProfileCompareModel *model() const { return m_model; }
    /// The roofline / reason lines above the table.
    QString summaryText() const;

private:
    void refresh();
    void fillPickers();
    QString nameOf(const QString &id) const;

    Run m_run;
    QComboBox *m_before = nullptr;
    QComboBox *m_after = nullptr;
    QLabel *m_summary = nullptr;
    QTableView *m_table = nullptr;
    ProfileCompareModel *m_model = nullptr;
    bool m_filling = false;
};

} // namespace kwb
