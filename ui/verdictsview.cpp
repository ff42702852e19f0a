// SPDX-License-Identifier: MIT
#include "verdictsview.h"

#include "icons.h"

#include <QHeaderView>
#include <QLabel>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace kwb {

namespace {
constexpr int kFirstLineRole = Qt::UserRole + 1;
constexpr int kLastLineRole = Qt::UserRole + 2;

QString linesText(const Evidence &e)
{
    if (e.firstLine <= 0)
        return {};
    return e.lastLine > e.firstLine ? QStringLiteral("L%1–%2").arg(e.firstLine).arg(e.lastLine)
                                    : QStringLiteral("L%1").arg(e.firstLine);
}

QString outcomeText(const Verdict &v)
{
    switch (v.outcome) {
    case Outcome::Yes:
        return toName(v.severity);
    case Outcome::No:
        return QStringLiteral("clean");
    case Outcome::CannotTell:
        return QStringLiteral("cannot tell");
    }
    return {};
}
} // namespace

VerdictsView::VerdictsView(QWidget *parent)
    : QWidget(parent)
    , m_header(new QLabel(this))
    , m_tree(new QTreeWidget(this))
{
    m_tree->setObjectName(QStringLiteral("verdictTree"));
    m_header->setWordWrap(true); // an override's written reason can be long
    // Two columns and short rows: the detector's name on the verdict's row, its summary, evidence
    // (with their lines) and fix as the rows under it. "detector — summary" on one row was cut to
    // a few letters in a 330 px dock.
    m_tree->setColumnCount(2);
    m_tree->setHeaderLabels({tr("Verdict"), tr("Outcome")});
    m_tree->setAlternatingRowColors(true);
    m_tree->setIndentation(12);
    m_tree->header()->setStretchLastSection(false);
    m_tree->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_tree->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    connect(m_tree, &QTreeWidget::itemClicked, this, [this](QTreeWidgetItem *item) { onItemActivated(item); });
    connect(m_tree, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem *item) { onItemActivated(item); });

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(m_header);
    layout->addWidget(m_tree);
    showCandidate(nullptr);
}

void VerdictsView::showCandidate(const Candidate *c)
{
    m_tree->clear();
    if (!c) {
        m_header->setText(tr("No candidate selected"));
        return;
    }
    const QList<Verdict> runtime = c->eval ? c->eval->runtimeChecks : QList<Verdict>();
    int flagged = 0;
    for (const auto *list : {&c->verdicts, &runtime})
        for (const Verdict &v : *list)
            flagged += v.outcome == Outcome::Yes && v.severity >= Severity::Warning;
    QString header = tr("%1: %2 verdicts, %3 flagged").arg(c->id).arg(c->verdicts.size() + runtime.size()).arg(flagged);
    if (!c->overrideReason.isEmpty())
        header += tr("  ·  integrity overridden: %1").arg(c->overrideReason);
    m_header->setText(header);
    addSection(tr("Static detectors"), c->verdicts);
    addSection(tr("Run-time integrity checks"), runtime);
    m_tree->expandAll();
}

void VerdictsView::addSection(const QString &title, const QList<Verdict> &verdicts)
{
    auto *section = new QTreeWidgetItem(m_tree, {verdicts.isEmpty() ? title + tr(" (none)") : title});
    QFont bold = section->font(0);
    bold.setBold(true);
    section->setFont(0, bold);
    section->setFirstColumnSpanned(true);
    for (const Verdict &v : verdicts) {
        auto *item = new QTreeWidgetItem(section, {v.detector, outcomeText(v)});
        item->setIcon(0, icons::verdictIcon(v));
        QString tip = QStringLiteral("%1 — %2: %3").arg(v.detector, outcomeText(v), v.summary);
        // The verdict row jumps to its first located evidence.
        for (const Evidence &e : v.evidence) {
            if (e.firstLine > 0) {
                item->setData(0, kFirstLineRole, e.firstLine);
                item->setData(0, kLastLineRole, std::max(e.firstLine, e.lastLine));
                tip += QStringLiteral(" (%1)").arg(linesText(e));
                break;
            }
        }
        item->setToolTip(0, tip);
        item->setToolTip(1, tip);
        if (!v.summary.isEmpty()) {
            auto *summary = new QTreeWidgetItem(item, {v.summary});
            summary->setFirstColumnSpanned(true);
            summary->setToolTip(0, v.summary);
            summary->setData(0, kFirstLineRole, item->data(0, kFirstLineRole));
            summary->setData(0, kLastLineRole, item->data(0, kLastLineRole));
        }
        for (const Evidence &e : v.evidence) {
            const QString lines = linesText(e);
            auto *ev = new QTreeWidgetItem(item, {lines.isEmpty() ? e.text : QStringLiteral("%1  %2").arg(lines, e.text)});
            ev->setFirstColumnSpanned(true);
            ev->setToolTip(0, ev->text(0));
            if (e.firstLine > 0) {
                ev->setData(0, kFirstLineRole, e.firstLine);
                ev->setData(0, kLastLineRole, std::max(e.firstLine, e.lastLine));
            }
        }
        if (!v.suggestedFix.isEmpty()) {
            auto *fix = new QTreeWidgetItem(item, {tr("Suggested fix: %1").arg(v.suggestedFix)});
            fix->setFirstColumnSpanned(true);
            fix->setToolTip(0, v.suggestedFix);
            QFont italic = fix->font(0);
            italic.setItalic(true);
            fix->setFont(0, italic);
        }
    }
}

void VerdictsView::onItemActivated(QTreeWidgetItem *item)
{
    if (!item)
        return;
    const int first = item->data(0, kFirstLineRole).toInt();
    if (first > 0)
        emit evidenceActivated(first, item->data(0, kLastLineRole).toInt());
}

void VerdictsView::activateNext(int step)
{
    QList<QTreeWidgetItem *> located;
    for (int i = 0; i < m_tree->topLevelItemCount(); ++i)
        for (int j = 0; j < m_tree->topLevelItem(i)->childCount(); ++j)
            if (m_tree->topLevelItem(i)->child(j)->data(0, kFirstLineRole).toInt() > 0)
                located.append(m_tree->topLevelItem(i)->child(j));
    if (located.isEmpty())
        return;
    const int at = int(located.indexOf(m_tree->currentItem()));
    const int n = int(located.size());
    const int next = at < 0 ? (step > 0 ? 0 : n - 1) : ((at + step) % n + n) % n;
    m_tree->setCurrentItem(located[next]);
    onItemActivated(located[next]);
}

QList<QPair<int, int>> VerdictsView::evidenceRanges(const Candidate &c)
{
    QList<QPair<int, int>> ranges;
    auto collect = [&ranges](const QList<Verdict> &vs) {
        for (const Verdict &v : vs)
            if (v.outcome == Outcome::Yes)
                for (const Evidence &e : v.evidence)
                    if (e.firstLine > 0)
                        ranges.append({e.firstLine, std::max(e.firstLine, e.lastLine)});
    };
    collect(c.verdicts);
    if (c.eval)
        collect(c.eval->runtimeChecks);
    return ranges;
}

} // namespace kwb
