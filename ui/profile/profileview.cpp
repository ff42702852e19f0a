// SPDX-License-Identifier: MIT
#include "profileview.h"

#include "profilecomparemodel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QVBoxLayout>

#include <cmath>

namespace kwb {

ProfileView::ProfileView(QWidget *parent)
    : QWidget(parent)
{
    m_before = new QComboBox(this);
    m_before->setObjectName(QStringLiteral("profileBefore"));
    m_after = new QComboBox(this);
    m_after->setObjectName(QStringLiteral("profileAfter"));
    for (QComboBox *c : {m_before, m_after}) {
        c->setSizeAdjustPolicy(QComboBox::AdjustToContents);
        connect(c, &QComboBox::currentIndexChanged, this, [this] {
            if (!m_filling)
                refresh();
        });
    }
    m_summary = new QLabel(this);
    m_summary->setObjectName(QStringLiteral("profileSummary"));
    m_summary->setWordWrap(true);
    m_summary->setTextFormat(Qt::PlainText);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_model = new ProfileCompareModel(this);
    m_table = new QTableView(this);
    m_table->setModel(m_model);
    m_table->verticalHeader()->hide();
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setWordWrap(false);

    auto *pick = new QHBoxLayout;
    pick->addWidget(new QLabel(tr("Profile of"), this));
    pick->addWidget(m_after);
    pick->addWidget(new QLabel(tr("compared with"), this));
    pick->addWidget(m_before);
    pick->addStretch(1);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(pick);
    layout->addWidget(m_summary);
    layout->addWidget(m_table, 1);
    refresh();
}

QString ProfileView::nameOf(const QString &id) const
{
    const Candidate *c = m_run.candidate(id);
    return c ? (c->label.isEmpty() ? c->id : QStringLiteral("%1 %2").arg(c->id, c->label)) : id;
}

void ProfileView::fillPickers()
{
    const QString before = beforeId();
    const QString after = afterId();
    m_filling = true;
    m_before->clear();
    m_after->clear();
    m_before->addItem(tr("(nothing)"), QString());
    for (const Candidate &c : m_run.candidates) {
        const auto p = c.shownProfile();
        const QString text = nameOf(c.id) + (p ? (p->measured() ? QString() : tr(" (not profiled)")) : tr(" (no profile)"));
        m_before->addItem(text, c.id);
        m_after->addItem(text, c.id);
    }
    m_before->setCurrentIndex(std::max(0, m_before->findData(before)));
    m_after->setCurrentIndex(m_after->findData(after));
    m_filling = false;
}

void ProfileView::setRun(const Run &run)
{
    m_run = run;
    fillPickers();
    refresh();
}

void ProfileView::showCandidate(const QString &candidateId)
{
    const Candidate *c = m_run.candidate(candidateId);
    QString before;
    if (c) {
        const Candidate *anc = m_run.candidate(c->parentId);
        for (qsizetype hops = 0; anc && !anc->shownProfile(); ++hops)
            anc = hops < m_run.candidates.size() ? m_run.candidate(anc->parentId) : nullptr;
        before = anc ? anc->id : QString();
    }
    compare(before, candidateId);
}

void ProfileView::compare(const QString &beforeId, const QString &afterId)
{
    m_filling = true;
    m_before->setCurrentIndex(std::max(0, m_before->findData(beforeId)));
    m_after->setCurrentIndex(m_after->findData(afterId));
    m_filling = false;
    refresh();
}

QString ProfileView::beforeId() const
{
    return m_before->currentData().toString();
}

QString ProfileView::afterId() const
{
    return m_after->currentIndex() >= 0 ? m_after->currentData().toString() : QString();
}

QString ProfileView::summaryText() const
{
    return m_summary->text();
}

void ProfileView::refresh()
{
    const Candidate *after = m_run.candidate(afterId());
    const Candidate *before = m_run.candidate(beforeId());
    const auto pa = after ? after->shownProfile() : std::nullopt;
    const auto pb = before ? before->shownProfile() : std::nullopt;
    QStringList lines;
    auto describe = [&](const Candidate *c, const std::optional<KernelProfile> &p) {
        if (!c)
            return;
        if (!p) {
            lines << tr("%1: no profile (profiles are taken before an algorithm analysis, or with kwb eval --profile)")
                         .arg(nameOf(c->id));
            return;
        }
        QString line = nameOf(c->id) + QStringLiteral(": ");
        const Roofline r = rooflineOf(p->metrics);
        line += p->measured() ? (r.isValid() ? r.details() : tr("measured; no roofline (no DRAM/FLOP counts or device peaks)")) : p->note;
        if (p->measured() && std::isfinite(p->seconds))
            line += tr("; profiled in %1 s").arg(p->seconds, 0, 'f', 1);
        if (p->measured() && !p->note.isEmpty())
            line += QStringLiteral(" (%1)").arg(p->note);
        lines << line;
    };
    describe(after, pa);
    describe(before, pb);
    m_summary->setText(lines.isEmpty() ? tr("Select a candidate to see its Nsight Compute profile.") : lines.join(QLatin1Char('\n')));
    const KernelProfile *b = pb && pb->measured() ? &*pb : nullptr;
    if (pa && (pa->measured() || b))
        m_model->setProfiles(b, before ? before->id : QString(), &*pa, after->id);
    else
        m_model->clear();
}

} // namespace kwb
