// SPDX-License-Identifier: MIT
#include "candidatetreeview.h"

#include "candidatetreemodel.h"

#include <QHeaderView>
#include <QLineEdit>
#include <QSortFilterProxyModel>
#include <QStyledItemDelegate>
#include <QTreeView>
#include <QVBoxLayout>

#include <algorithm>

namespace kwb {

namespace {
/// Shows a cell's compact text (CandidateTreeModel::CompactTextRole) when its full text does not
/// fit the column, and fits columns to the compact text: "≈1.02× (within noise)" in a wide
/// column, "≈1.02×" (greyed, the tooltip says why) in a narrow one.
class CompactTextDelegate : public QStyledItemDelegate
{
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const override
    {
        QStyleOptionViewItem narrow(option);
        narrow.rect.setWidth(0); // asks for the compact form where there is one
        return QStyledItemDelegate::sizeHint(narrow, index);
    }

protected:
    void initStyleOption(QStyleOptionViewItem *option, const QModelIndex &index) const override
    {
        QStyledItemDelegate::initStyleOption(option, index);
        const QVariant compact = index.data(CandidateTreeModel::CompactTextRole);
        if (compact.isValid() && option->fontMetrics.horizontalAdvance(option->text) + 10 > option->rect.width())
            option->text = compact.toString();
    }
};

/// Sorts with the model's SortRole and keeps rows without a value (failed, not yet timed) at the
/// bottom in both directions: a person sorting by score wants the numbers first.
class CandidateProxyModel : public QSortFilterProxyModel
{
public:
    using QSortFilterProxyModel::QSortFilterProxyModel;

protected:
    bool lessThan(const QModelIndex &left, const QModelIndex &right) const override
    {
        const QVariant l = left.data(sortRole());
        const QVariant r = right.data(sortRole());
        if (!l.isValid() || !r.isValid()) {
            if (l.isValid() == r.isValid())
                return false;
            // Ascending: a value sorts before "none". Descending sorts by lessThan(right, left),
            // so there "none" must compare as the smallest to end up last.
            return sortOrder() == Qt::AscendingOrder ? l.isValid() : !l.isValid();
        }
        return QSortFilterProxyModel::lessThan(left, right);
    }
};
} // namespace

CandidateTreeView::CandidateTreeView(CandidateTreeModel *model, QWidget *parent)
    : QWidget(parent)
    , m_model(model)
    , m_proxy(new CandidateProxyModel(this))
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
    m_tree->setItemDelegate(new CompactTextDelegate(m_tree));
    m_tree->setObjectName(QStringLiteral("candidateTree"));
    m_tree->setSortingEnabled(true);
    m_tree->sortByColumn(CandidateTreeModel::NameColumn, Qt::AscendingOrder);
    m_tree->setSelectionMode(QAbstractItemView::SingleSelection);
    m_tree->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_tree->setUniformRowHeights(true); // lets a 2,000-row tree lay out without measuring every row
    m_tree->setAlternatingRowColors(true);
    m_tree->setIndentation(14); // repair chains nest deeply; the default indentation hides the names
    m_tree->header()->setStretchLastSection(false);
    // Ids and call types differ at both ends ("c0005 algorithm_optimized_seed1"): keep both ends.
    m_tree->setTextElideMode(Qt::ElideMiddle);
    const QList<QPair<int, int>> widths{{CandidateTreeModel::NameColumn, 190}, {CandidateTreeModel::KindColumn, 100},
                                        {CandidateTreeModel::StatusColumn, 120}, {CandidateTreeModel::ScoreEagerColumn, 58},
                                        {CandidateTreeModel::ScoreGraphColumn, 58}, {CandidateTreeModel::LatencyColumn, 112},
                                        {CandidateTreeModel::DeltaColumn, 72}, {CandidateTreeModel::TokensColumn, 60},
                                        {CandidateTreeModel::RooflineColumn, 80}};
    for (const auto &[column, width] : widths)
        m_tree->setColumnWidth(column, width);
    // What a person compares first comes first: the honest bar (× graph) before × eager, the kind
    // (mostly said by the label already) last.
    QHeaderView *header = m_tree->header();
    header->moveSection(header->visualIndex(CandidateTreeModel::ScoreGraphColumn),
                        header->visualIndex(CandidateTreeModel::ScoreEagerColumn));
    header->moveSection(header->visualIndex(CandidateTreeModel::KindColumn), CandidateTreeModel::ColumnCount - 1);
    connect(header, &QHeaderView::sectionResized, this, [this] {
        if (!m_fitting)
            m_userSized = true;
    });

    connect(m_tree->selectionModel(), &QItemSelectionModel::currentChanged, this,
            &CandidateTreeView::onCurrentChanged);
    connect(m_proxy, &QAbstractItemModel::rowsInserted, this, &CandidateTreeView::onRowsInserted);
    // Fitting waits for the view to lay out the new rows (it measures the rows it has laid out), and
    // one fit serves a burst of live inserts.
    m_fitTimer.setSingleShot(true);
    m_fitTimer.setInterval(0);
    connect(&m_fitTimer, &QTimer::timeout, this, &CandidateTreeView::fitColumns);
    connect(m_proxy, &QAbstractItemModel::rowsInserted, this, [this] { m_fitTimer.start(); });
    connect(m_proxy, &QAbstractItemModel::modelReset, this, [this] {
        m_tree->expandAll();
        m_fitTimer.start();
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
    if (state.isEmpty())
        return;
    m_fitting = true; // widths from the last session, not a drag in this one
    m_tree->header()->restoreState(state);
    m_fitting = false;
}

void CandidateTreeView::fitColumns()
{
    if (m_userSized)
        return;
    m_fitting = true;
    const int room = m_tree->viewport()->width();
    for (int column = 0; column < CandidateTreeModel::ColumnCount; ++column) {
        m_tree->resizeColumnToContents(column);
        const int cap = column == CandidateTreeModel::StatusColumn ? std::clamp(room / 4, 100, 220)
                        : column == CandidateTreeModel::NameColumn ? std::clamp(room * 3 / 5, 340, 480)
                                                                   : 340;
        if (m_tree->columnWidth(column) > cap)
            m_tree->setColumnWidth(column, cap);
    }
    // The name gives way (elided in the middle, whole in its tooltip) so that the status and both
    // speedups beside it stay in view in a narrow dock.
    const int beside = m_tree->columnWidth(CandidateTreeModel::StatusColumn)
        + m_tree->columnWidth(CandidateTreeModel::ScoreGraphColumn) + m_tree->columnWidth(CandidateTreeModel::ScoreEagerColumn);
    const int nameRoom = std::max(150, room - beside - 2);
    if (m_tree->columnWidth(CandidateTreeModel::NameColumn) > nameRoom)
        m_tree->setColumnWidth(CandidateTreeModel::NameColumn, nameRoom);
    m_fitting = false;
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
