// SPDX-License-Identifier: MIT
#include "candidatetreemodel.h"

#include "icons.h"
#include "speedup.h"

#include <QBrush>
#include <QColor>
#include <QCoreApplication>
#include <QFont>

#include <cmath>
#include <utility>
#include <limits>

namespace kwb {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double medianOf(const Candidate &c)
{
    return c.eval && c.eval->runnable() && c.eval->candidate.isValid() ? c.eval->candidate.medianMs : kNaN;
}

QString kindText(const Candidate &c)
{
    switch (c.kind) {
    case CandidateKind::Baseline:
        return QStringLiteral("baseline");
    case CandidateKind::Seed:
        return QStringLiteral("seed");
    case CandidateKind::Repair:
        return QStringLiteral("repair");
    case CandidateKind::AlgoOpt:
        return QStringLiteral("algo-opt");
    case CandidateKind::StageGrid:
        return QStringLiteral("stage: grid");
    case CandidateKind::StageBlock:
        return QStringLiteral("stage: block");
    case CandidateKind::StageMemory:
        return QStringLiteral("stage: memory");
    case CandidateKind::ManualEdit:
        return QStringLiteral("manual edit");
    case CandidateKind::Reprompt:
        return QStringLiteral("re-prompt");
    }
    return {};
}

/// The speedup a score column shows: only for correct candidates (a wrong kernel's speed means nothing).
Speedup scoreOf(const Candidate &c, int column)
{
    if (!c.eval || !c.eval->correct())
        return {};
    return column == CandidateTreeModel::ScoreGraphColumn ? Speedup::vsGraph(*c.eval) : Speedup::vsEager(*c.eval);
}

QString scoreToolTip(const Candidate &c, int column)
{
    if (!c.eval)
        return {};
    const bool graph = column == CandidateTreeModel::ScoreGraphColumn;
    const LatencyStats &base = graph ? c.eval->graph : c.eval->eager;
    const QString name = graph ? QCoreApplication::translate("kwb::CandidateTreeModel", "the CUDA graph of the reference")
                               : QCoreApplication::translate("kwb::CandidateTreeModel", "PyTorch eager");
    if (!c.eval->correct())
        return QCoreApplication::translate("kwb::CandidateTreeModel", "No speedup: the candidate is not correct (%1)")
            .arg(toName(c.eval->status));
    if (!base.isValid())
        return graph ? QCoreApplication::translate("kwb::CandidateTreeModel",
                                                   "No CUDA-graph baseline was measured (CPU run, or the graph could not be captured)")
                     : QCoreApplication::translate("kwb::CandidateTreeModel", "No eager baseline was measured");
    return scoreOf(c, column).explanation(name, base, c.eval->candidate);
}

// Four significant digits read well from 0.01 ms kernels to 100 ms baselines.
int latencyDecimals(double ms)
{
    return ms < 1 ? 4 : ms < 10 ? 3 : ms < 100 ? 2 : 1;
}

QVariant numberOrNothing(double d)
{
    return std::isfinite(d) ? QVariant(d) : QVariant();
}
} // namespace

CandidateTreeModel::CandidateTreeModel(QObject *parent)
    : QAbstractItemModel(parent)
{
}

void CandidateTreeModel::setRun(const Run &run)
{
    beginResetModel();
    m_run = run;
    rebuild();
    m_bestId = computeBest(); // no dataChanged inside a reset
    endResetModel();
}

void CandidateTreeModel::setRunInfo(const RunInfo &info)
{
    m_run.info = info;
    updateBest();
}

QString CandidateTreeModel::computeBest() const
{
    if (m_byId.contains(m_run.info.bestCandidateId))
        return m_run.info.bestCandidateId;
    const Candidate *c = m_run.best();
    return c ? c->id : QString();
}

void CandidateTreeModel::updateBest()
{
    const QString best = computeBest();
    if (best == m_bestId)
        return;
    const QString old = std::exchange(m_bestId, best);
    for (const QString &id : {old, best}) {
        const QModelIndex first = indexOf(id, 0);
        if (first.isValid())
            emit dataChanged(first, indexOf(id, ColumnCount - 1));
    }
}

void CandidateTreeModel::rebuild()
{
    const int n = int(m_run.candidates.size());
    m_nodes = QList<Node>(n);
    m_topLevel.clear();
    m_byId.clear();
    m_byId.reserve(n);
    m_exchangeById.clear();
    for (int i = 0; i < n; ++i)
        m_byId.insert(m_run.candidates[i].id, i);
    for (int i = 0; i < int(m_run.exchanges.size()); ++i)
        m_exchangeById.insert(m_run.exchanges[i].id, i);

    for (int i = 0; i < n; ++i) {
        const int p = m_byId.value(m_run.candidates[i].parentId, -1);
        m_nodes[i].parent = p == i ? -1 : p;
    }
    // A damaged run (copied by hand, edited) may hold a parent cycle: it would make parent() loop.
    // Walk up from each node; a walk longer than the tree is a cycle, broken at its start.
    for (int i = 0; i < n; ++i) {
        int steps = 0;
        for (int p = m_nodes[i].parent; p >= 0; p = m_nodes[p].parent) {
            if (++steps > n) {
                m_nodes[i].parent = -1;
                break;
            }
        }
    }
    for (int i = 0; i < n; ++i)
        attach(i);
}

int CandidateTreeModel::attach(int node)
{
    QList<int> &siblings = m_nodes[node].parent < 0 ? m_topLevel : m_nodes[m_nodes[node].parent].children;
    m_nodes[node].row = int(siblings.size());
    siblings.append(node);
    return m_nodes[node].row;
}

void CandidateTreeModel::addCandidate(const Candidate &c)
{
    if (m_byId.contains(c.id)) {
        updateCandidate(c);
        return;
    }
    const int node = int(m_nodes.size());
    const int parentNode = m_byId.value(c.parentId, -1);
    const QList<int> &siblings = parentNode < 0 ? m_topLevel : m_nodes[parentNode].children;
    const int row = int(siblings.size());
    beginInsertRows(parentNode < 0 ? QModelIndex() : indexOfNode(parentNode, 0), row, row);
    m_run.candidates.append(c);
    m_nodes.append(Node{parentNode, row, {}});
    m_byId.insert(c.id, node);
    attach(node);
    endInsertRows();
    updateBest();
}

void CandidateTreeModel::updateCandidate(const Candidate &c)
{
    const int node = m_byId.value(c.id, -1);
    if (node < 0) {
        addCandidate(c);
        return;
    }
    // The tree's shape stays as it was: a candidate does not change its parent once created.
    m_run.candidates[node] = c;
    emit dataChanged(indexOfNode(node, 0), indexOfNode(node, ColumnCount - 1));
    const QList<int> &kids = m_nodes[node].children;
    if (!kids.isEmpty())
        emit dataChanged(indexOfNode(kids.first(), DeltaColumn), indexOfNode(kids.last(), DeltaColumn));
    updateBest();
}

void CandidateTreeModel::updateExchange(const LlmExchange &x)
{
    const int at = m_exchangeById.value(x.id, -1);
    if (at >= 0) {
        m_run.exchanges[at] = x;
    } else {
        m_exchangeById.insert(x.id, int(m_run.exchanges.size()));
        m_run.exchanges.append(x);
    }
    for (int i = 0; i < int(m_run.candidates.size()); ++i) {
        const Candidate &c = m_run.candidates[i];
        if (c.id == x.candidateId || c.exchangeIds.contains(x.id)) {
            const QModelIndex idx = indexOfNode(i, TokensColumn);
            emit dataChanged(idx, idx);
        }
    }
}

QModelIndex CandidateTreeModel::indexOf(const QString &candidateId, int column) const
{
    const int node = m_byId.value(candidateId, -1);
    return node < 0 ? QModelIndex() : indexOfNode(node, column);
}

const Candidate *CandidateTreeModel::candidateAt(const QModelIndex &index) const
{
    if (!index.isValid() || index.model() != this)
        return nullptr;
    return &m_run.candidates[int(index.internalId())];
}

qint64 CandidateTreeModel::tokensOf(const Candidate &c) const
{
    qint64 sum = 0;
    for (const QString &id : c.exchangeIds) {
        const int at = m_exchangeById.value(id, -1);
        if (at >= 0)
            sum += m_run.exchanges[at].inputTokens + m_run.exchanges[at].outputTokens;
    }
    return sum;
}

QModelIndex CandidateTreeModel::indexOfNode(int node, int column) const
{
    return createIndex(m_nodes[node].row, column, quintptr(node));
}

QModelIndex CandidateTreeModel::index(int row, int column, const QModelIndex &parent) const
{
    if (row < 0 || column < 0 || column >= ColumnCount || (parent.isValid() && parent.column() != 0))
        return {};
    const QList<int> &siblings = parent.isValid() ? m_nodes[int(parent.internalId())].children : m_topLevel;
    if (row >= siblings.size())
        return {};
    return createIndex(row, column, quintptr(siblings[row]));
}

QModelIndex CandidateTreeModel::parent(const QModelIndex &child) const
{
    if (!child.isValid())
        return {};
    const int p = m_nodes[int(child.internalId())].parent;
    return p < 0 ? QModelIndex() : indexOfNode(p, 0);
}

int CandidateTreeModel::rowCount(const QModelIndex &parent) const
{
    if (!parent.isValid())
        return int(m_topLevel.size());
    if (parent.column() != 0)
        return 0;
    return int(m_nodes[int(parent.internalId())].children.size());
}

int CandidateTreeModel::columnCount(const QModelIndex &) const
{
    return ColumnCount;
}

double CandidateTreeModel::deltaVsParent(int node) const
{
    const int p = m_nodes[node].parent;
    if (p < 0)
        return kNaN;
    const double mine = medianOf(m_run.candidates[node]);
    const double theirs = medianOf(m_run.candidates[p]);
    return std::isfinite(mine) && std::isfinite(theirs) && theirs > 0 ? (mine - theirs) / theirs * 100.0 : kNaN;
}

QVariant CandidateTreeModel::displayData(const Candidate &c, int node, int column) const
{
    switch (column) {
    case NameColumn:
        return c.label.isEmpty() ? c.id : QStringLiteral("%1  %2").arg(c.id, c.label);
    case KindColumn:
        return kindText(c);
    case StatusColumn: {
        const QString s = icons::statusText(c);
        return c.id == m_bestId ? QStringLiteral("★ best, ") + s : s;
    }
    case ScoreEagerColumn:
    case ScoreGraphColumn: {
        const Speedup s = scoreOf(c, column);
        if (s.isValid())
            return s.text();
        // Correct but no baseline to compare with: say "not measured" rather than leave a hole.
        return c.eval && c.eval->correct() ? QStringLiteral("–") : QString();
    }
    case LatencyColumn: {
        const double m = medianOf(c);
        if (!std::isfinite(m))
            return QString();
        const double sd = c.eval->candidate.stdMs;
        const int decimals = latencyDecimals(m);
        return std::isfinite(sd) ? QStringLiteral("%1 ± %2").arg(m, 0, 'f', decimals).arg(sd, 0, 'f', decimals)
                                 : QString::number(m, 'f', decimals);
    }
    case DeltaColumn: {
        const double d = deltaVsParent(node);
        return std::isfinite(d) ? QStringLiteral("%1%2 %").arg(d > 0 ? "+" : "").arg(d, 0, 'f', 1) : QString();
    }
    case TokensColumn: {
        const qint64 t = tokensOf(c);
        return t > 0 ? QLocale().toString(t) : QString();
    }
    case RooflineColumn:
        if (const auto p = c.shownProfile())
            return p->measured() ? rooflineOf(p->metrics).shortText() : QStringLiteral("—");
        return QString();
    }
    return {};
}

QVariant CandidateTreeModel::toolTip(const Candidate &c, int node, int column) const
{
    // Every cell's full text is in its tooltip, with what a narrow column cannot say.
    QStringList lines;
    switch (column) {
    case NameColumn:
        lines << (c.label.isEmpty() ? c.id : QStringLiteral("%1  %2").arg(c.id, c.label));
        break;
    case StatusColumn:
        lines << displayData(c, node, column).toString();
        if (c.eval && !c.eval->reason.isEmpty())
            lines << c.eval->reason;
        break;
    case ScoreEagerColumn:
    case ScoreGraphColumn:
        if (const QString t = scoreToolTip(c, column); !t.isEmpty())
            return t;
        break;
    case RooflineColumn:
        if (const auto p = c.shownProfile()) {
            const Roofline r = rooflineOf(p->metrics);
            lines << (r.isValid() ? r.details() : p->note);
        }
        break;
    default:
        if (const QString t = displayData(c, node, column).toString(); !t.isEmpty())
            lines << t;
    }
    if (!c.note.isEmpty())
        lines << c.note;
    return lines.isEmpty() ? QVariant() : QVariant(lines.join(u'\n'));
}

QVariant CandidateTreeModel::sortData(const Candidate &c, int node, int column) const
{
    switch (column) {
    case NameColumn:
        return node; // creation order: the tree reads as the run unfolded
    case KindColumn:
        return int(c.kind);
    case StatusColumn:
        return int(icons::badgeOf(c));
    case ScoreEagerColumn:
    case ScoreGraphColumn:
        return numberOrNothing(scoreOf(c, column).value);
    case LatencyColumn:
        return numberOrNothing(medianOf(c));
    case DeltaColumn:
        return numberOrNothing(deltaVsParent(node));
    case TokensColumn:
        return tokensOf(c);
    case RooflineColumn:
        if (const auto p = c.shownProfile())
            return numberOrNothing(rooflineOf(p->metrics).fractionOfLimit());
        return {};
    }
    return {};
}

QVariant CandidateTreeModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid())
        return {};
    const int node = int(index.internalId());
    const Candidate &c = m_run.candidates[node];
    switch (role) {
    case Qt::DisplayRole:
        return displayData(c, node, index.column());
    case CandidateIdRole:
        return c.id;
    case SortRole:
        return sortData(c, node, index.column());
    case CompactTextRole:
        if (index.column() == ScoreEagerColumn || index.column() == ScoreGraphColumn) {
            const Speedup s = scoreOf(c, index.column());
            return s.withinNoise ? QVariant(s.shortText()) : QVariant();
        }
        return {};
    case Qt::DecorationRole:
        return index.column() == NameColumn ? QVariant(icons::candidateIcon(c)) : QVariant();
    case Qt::ToolTipRole:
        return toolTip(c, node, index.column());
    case Qt::FontRole:
        if (c.id == m_bestId) {
            QFont f;
            f.setBold(true);
            return f;
        }
        return {};
    case Qt::ForegroundRole:
        if ((index.column() == ScoreEagerColumn || index.column() == ScoreGraphColumn) && scoreOf(c, index.column()).withinNoise)
            return QBrush(QColor(0x80, 0x80, 0x80)); // greyed: not a measured change
        if (index.column() == DeltaColumn) {
            const double d = deltaVsParent(node);
            if (std::isfinite(d) && std::abs(d) >= 1.0)
                return QBrush(d < 0 ? QColor(0x2e, 0xa0, 0x43) : QColor(0xd0, 0x33, 0x33));
        }
        return {};
    case Qt::TextAlignmentRole:
        return index.column() >= ScoreEagerColumn ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
    }
    return {};
}

QVariant CandidateTreeModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::DisplayRole) {
        switch (section) {
        case NameColumn:
            return tr("Candidate");
        case KindColumn:
            return tr("Kind");
        case StatusColumn:
            return tr("Status");
        case ScoreEagerColumn:
            return tr("× eager");
        case ScoreGraphColumn:
            return tr("× graph");
        case LatencyColumn:
            return tr("Median ms");
        case DeltaColumn:
            return tr("Δ parent");
        case TokensColumn:
            return tr("Tokens");
        case RooflineColumn:
            return tr("Roofline");
        }
    }
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case ScoreEagerColumn:
            return tr("Speedup against PyTorch eager (baseline median / candidate median); "
                      "≈ … (within noise): inside the measured spread of the two timings");
        case ScoreGraphColumn:
            return tr("Speedup against the same eager call captured in a CUDA graph: the honest bar; "
                      "≈ … (within noise): inside the measured spread of the two timings");
        case LatencyColumn:
            return tr("Median latency ± standard deviation over the timed trials, in milliseconds");
        case DeltaColumn:
            return tr("Change of median latency against the parent candidate (negative is faster)");
        case TokensColumn:
            return tr("Input + output tokens of the LLM calls that produced this candidate");
        case RooflineColumn:
            return tr("From the Nsight Compute profile: the roof that binds the kernel (memory bandwidth or FP32/FP64) "
                      "and how much of the device's peak it reaches; sorts by that fraction");
        }
    }
    return {};
}

} // namespace kwb
