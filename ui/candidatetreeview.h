// SPDX-License-Identifier: MIT
#pragma once

#include <QTimer>
#include <QWidget>

class QLineEdit;
class QSortFilterProxyModel;
class QTreeView;

namespace kwb {

class CandidateTreeModel;

/// The candidate tree with its filter line: a sortable, filterable QTreeView over a
/// CandidateTreeModel. Its one output is candidateSelected(id), which drives every other view.
class CandidateTreeView : public QWidget
{
    Q_OBJECT
public:
    explicit CandidateTreeView(CandidateTreeModel *model, QWidget *parent = nullptr);

    QString currentCandidateId() const;
    QTreeView *treeView() const { return m_tree; }
    QLineEdit *filterEdit() const { return m_filter; }
    QSortFilterProxyModel *proxy() const { return m_proxy; }

    /// Column widths and sort order, for QSettings.
    QByteArray saveHeaderState() const;
    void restoreHeaderState(const QByteArray &state);
    /// Fits the columns to their contents (capped), unless a person resized one in this session.
    void fitColumns();

public slots:
    /// Selects (and scrolls to) a candidate; clears the filter when the filter hides it.
    void selectCandidate(const QString &id);
    void focusFilter();

signals:
    void candidateSelected(const QString &id);

private:
    void onCurrentChanged();
    void onRowsInserted(const QModelIndex &parent, int first, int last);

    CandidateTreeModel *m_model;
    QSortFilterProxyModel *m_proxy;
    QLineEdit *m_filter;
    QTreeView *m_tree;
    QString m_lastEmitted;
    QTimer m_fitTimer;
    bool m_fitting = false;
    bool m_userSized = false; ///< a person dragged a column edge: their widths win over fitting
};

} // namespace kwb
