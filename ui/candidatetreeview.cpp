// SPDX-License-Identifier: MIT
#include "candidatetreeview.h"

#include "candidatetreemodel.h"

#include <QHeaderView>
#include <QLineEdit>
#include <QSortFilterProxyModel>
#include <QTreeView>
#include <QVBoxLayout>

namespace kwb {

CandidateTreeView::CandidateTreeView(CandidateTreeModel *model, QWidget *parent)
    : QWidget(parent)
    , m_model(model)
    , m_proxy(new QSortFilterProxyModel(this))
    , m_filter(new QLineEdit(this))
    , m_tree(new QTreeView(this))
{
    m_proxy->setSourceModel(model);
    m_proxy->setSortRole(CandidateTreeModel::SortRole);
    m_proxy->setFilterKeyColumn(-1);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    // A matching repair keeps its seed visible, so the match is seen where it sits in the tree.
    m_proxy->setRecursiveFilteringEnabled(true);

    m_filter->setPlaceholderText(tr("Filter candidates (id, kind, label, status)…"));
    m_filter->setClearButtonEnabled(true);
    connect(m_filter, &QLineEdit::textChanged, m_proxy, &QSortFilterProxyModel::setFilterFixedString);

    m_tree->setModel(m_proxy);
    m_tree->setObjectName(QStringLiteral("candidateTree"));
    m_tree->setSortingEnabled(true);
    m_tree->sortByColumn(CandidateTreeModel::NameColumn, Qt::AscendingOrder);
    m_tree->setSelectionMode(QAbstractItemView::SingleSelection);
    m_tree->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_tree->setUniformRowHeights(true); // lets a 2,000-row tree lay out without measuring every row
    m_tree->setAlternatingRowColors(true);
    m_tree->header()->setStretchLastSection(false);
    m_tree->setColumnWidth(CandidateTreeModel::NameColumn, 260);
    m_tree->setColumnWidth(CandidateTreeModel::StatusColumn, 150);
    m_tree->setColumnWidth(CandidateTreeModel::ScoreEagerColumn, 70);
    m_tree->setColumnWidth(CandidateTreeModel::ScoreGraphColumn, 70);
    m_tree->setColumnWidth(CandidateTreeModel::LatencyColumn, 140);
    m_tree->setColumnWidth(CandidateTreeModel::DeltaColumn, 75);
    m_tree->setColumnWidth(CandidateTreeModel::TokensColumn, 70);

    connect(m_tree->selectionModel(), &QItemSelectionModel::currentChanged, this,
            &CandidateTreeView::onCurrentChanged);
    connect(m_proxy, &QAbstractItemModel::rowsInserted, this, &CandidateTreeView::onRowsInserted);
    connect(m_proxy, &QAbstractItemModel::modelReset, this, [this] {
        m_tree->expandAll();
        // A new run: nothing is selected any more, and the same id later is a new selection.
        if (!m_lastEmitted.isEmpty()) {
            m_lastEmitted.clear();
            emit candidateSelected(QString());
        }
    });

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(m_filter);
    layout->addWidget(m_tree);
}

QString CandidateTreeView::currentCandidateId() const
{
    return m_tree->currentIndex().data(CandidateTreeModel::CandidateIdRole).toString();
}

QByteArray CandidateTreeView::saveHeaderState() const
{
    return m_tree->header()->saveState();
}

void CandidateTreeView::restoreHeaderState(const QByteArray &state)
{
    if (!state.isEmpty())
        m_tree->header()->restoreState(state);
}

void CandidateTreeView::selectCandidate(const QString &id)
{
    QModelIndex source = m_model->indexOf(id);
    if (!source.isValid())
        return;
    QModelIndex proxyIndex = m_proxy->mapFromSource(source);
    if (!proxyIndex.isValid()) {
        m_filter->clear();
        proxyIndex = m_proxy->mapFromSource(source);
    }
    m_tree->selectionModel()->setCurrentIndex(proxyIndex,
                                              QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    m_tree->scrollTo(proxyIndex);
}

void CandidateTreeView::focusFilter()
{
    m_filter->setFocus();
    m_filter->selectAll();
}

void CandidateTreeView::onCurrentChanged()
{
    const QString id = currentCandidateId();
    // Sorting and filtering move the current row without changing which candidate it is.
    if (id == m_lastEmitted)
        return;
    m_lastEmitted = id;
    emit candidateSelected(id);
}

void CandidateTreeView::onRowsInserted(const QModelIndex &parent, int, int)
{
    // Live candidates appear where a person looks: under an expanded parent.
    if (parent.isValid())
        m_tree->expand(parent);
}

} // namespace kwb
