// SPDX-License-Identifier: MIT
#pragma once

#include "model/run.h"

#include <QAbstractItemModel>
#include <QHash>
#include <QList>

namespace kwb {

/// The candidate tree of one run as an item model: every candidate is a row under its parent
/// (seed → repair → algo-opt → repair → stages; manual edits and re-prompts are rows of their own).
/// Live changes insert or update rows and never reset the model, so a view's selection survives.
class CandidateTreeModel : public QAbstractItemModel
{
    Q_OBJECT
public:
    enum Column { NameColumn, KindColumn, StatusColumn, ScoreEagerColumn, ScoreGraphColumn, LatencyColumn, DeltaColumn,
                  TokensColumn, RooflineColumn, ColumnCount };
    enum Role {
        CandidateIdRole = Qt::UserRole + 1, ///< QString: the candidate's id
        SortRole, ///< a number (or the creation order) to sort the column by; invalid when there is none
        CompactTextRole, ///< QString: a shorter display text for a narrow column ("≈1.02×"); invalid when there is none
    };

    explicit CandidateTreeModel(QObject *parent = nullptr);

    /// Replaces the whole run (the one place the model resets).
    void setRun(const Run &run);
    const Run &run() const { return m_run; }
    /// Replaces the run's header (state, best candidate ...); the rows stay.
    void setRunInfo(const RunInfo &info);
    /// The best candidate: the engine's choice when recorded, else the eligible one with the lowest
    /// median latency (a live run records its choice only at the end).
    QString bestId() const { return m_bestId; }

    /// A new candidate: inserted under its parent (at the top level when the parent is unknown).
    void addCandidate(const Candidate &c);
    /// A known candidate changed (status, evaluation, verdicts): its row and its children's deltas update.
    /// An unknown id is added.
    void updateCandidate(const Candidate &c);
    /// An LLM call was added or changed: refreshes the token count of the candidates it belongs to.
    void updateExchange(const LlmExchange &x);

    QModelIndex indexOf(const QString &candidateId, int column = 0) const;
    const Candidate *candidateAt(const QModelIndex &index) const;
    /// Tokens (input + output) of the LLM calls that produced a candidate.
    qint64 tokensOf(const Candidate &c) const;

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    // One node per candidate; the index in m_nodes is stable (nodes are only appended) and is
    // the QModelIndex's internal id. Candidates live in m_run.candidates at the same position.
    struct Node {
        int parent = -1; ///< node index, -1 for top level
        int row = 0; ///< position among its parent's children
        QList<int> children;
    };
    void rebuild();
    int attach(int nodeIndex);
    QModelIndex indexOfNode(int node, int column) const;
    QVariant displayData(const Candidate &c, int node, int column) const;
    QVariant sortData(const Candidate &c, int node, int column) const;
    QVariant toolTip(const Candidate &c, int node, int column) const;
    double deltaVsParent(int node) const;
    void updateBest();
    QString computeBest() const;

    Run m_run;
    QList<Node> m_nodes;
    QList<int> m_topLevel;
    QHash<QString, int> m_byId;
    QHash<QString, int> m_exchangeById; ///< exchange id -> position in m_run.exchanges
    QString m_bestId;
};

} // namespace kwb
