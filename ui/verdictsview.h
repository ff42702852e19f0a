// SPDX-License-Identifier: MIT
#pragma once

#include "model/candidate.h"

#include <QPair>
#include <QWidget>

class QLabel;
class QTreeWidget;
class QTreeWidgetItem;

namespace kwb {

/// The detectors' verdicts and the run-time integrity checks of one candidate: icon by outcome and
/// severity, summary, evidence lines, suggested fix. Clicking a verdict or an evidence line asks the
/// code view to show those lines (evidenceActivated).
class VerdictsView : public QWidget
{
    Q_OBJECT
public:
    explicit VerdictsView(QWidget *parent = nullptr);

    /// Shows the verdicts of a candidate; nullptr clears the view.
    void showCandidate(const Candidate *c);
    QTreeWidget *treeWidget() const { return m_tree; }

    /// Every line range (1-based, inclusive) that a candidate's verdicts with outcome "yes" point at.
    static QList<QPair<int, int>> evidenceRanges(const Candidate &c);

public slots:
    /// Moves to the next (step > 0) or previous verdict that points at lines, wrapping around, and
    /// activates it (the code view follows).
    void activateNext(int step);

signals:
    void evidenceActivated(int firstLine, int lastLine);

private:
    void addSection(const QString &title, const QList<Verdict> &verdicts);
    void onItemActivated(QTreeWidgetItem *item);

    QLabel *m_header;
    QTreeWidget *m_tree;
};

} // namespace kwb
