// SPDX-License-Identifier: MIT
#include "evaldetailsview.h"

#include "icons.h"
#include "speedup.h"

#include <QLocale>
#include <QTextBrowser>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace kwb {

namespace {

QString esc(const QString &s)
{
    return s.toHtmlEscaped();
}

QString num(double v, int precision = 4)
{
    return std::isfinite(v) ? QString::number(v, 'g', precision) : QStringLiteral("–");
}

QString sci(double v)
{
    return std::isfinite(v) ? QString::number(v, 'e', 1) : QStringLiteral("–");
}

QString bytes(qint64 b)
{
    return QLocale().formattedDataSize(b, 2, QLocale::DataSizeIecFormat);
}

QString statusColour(const EvalResult &r)
{
    if (r.correct())
        return QStringLiteral("#2e9e4a");
    if (r.status == EvalStatus::InternalError || r.status == EvalStatus::HarnessOutOfMemory
        || r.status == EvalStatus::Cancelled || r.status == EvalStatus::NoGpu)
        return QStringLiteral("#c07a10"); // not the candidate's fault
    return QStringLiteral("#d0453a");
}

QString section(const QString &title)
{
    return QStringLiteral("<h4 style='margin-top:10px; margin-bottom:2px'>%1</h4>").arg(esc(title));
}

QString row(const QString &key, const QString &valueHtml)
{
    return QStringLiteral("<tr><td style='padding-right:10px'><b>%1</b></td><td>%2</td></tr>").arg(esc(key), valueHtml);
}

QString statsRow(const QString &name, const LatencyStats &s)
{
    if (!s.isValid())
        return QStringLiteral("<tr><td><b>%1</b></td><td colspan='6'>%2</td></tr>")
            .arg(esc(name), EvalDetailsView::tr("not measured"));
    return QStringLiteral("<tr><td style='padding-right:8px'><b>%1</b></td><td align='right'>%2</td><td align='right'>%3</td>"
                          "<td align='right'>%4</td><td align='right'>%5</td><td align='right'>%6</td><td align='right'>%7</td></tr>")
        .arg(esc(name), num(s.medianMs), num(s.stdMs, 3), num(s.minMs), num(s.maxMs),
             std::isfinite(s.cv) ? QString::number(s.cv * 100, 'f', 1) + QStringLiteral(" %") : QStringLiteral("–"))
        .arg(s.samples);
}

QString outcomeLabel(const Verdict &v)
{
    switch (v.outcome) {
    case Outcome::Yes:
        return toName(v.severity);
    case Outcome::No:
        return EvalDetailsView::tr("clean");
    case Outcome::CannotTell:
        return EvalDetailsView::tr("cannot tell");
    }
    return {};
}

} // namespace

EvalDetailsView::EvalDetailsView(QWidget *parent)
    : QWidget(parent)
    , m_text(new QTextBrowser(this))
{
    m_text->setObjectName(QStringLiteral("evalDetails"));
    m_text->setOpenLinks(false);
    m_text->setLineWrapMode(QTextEdit::WidgetWidth);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_text);
    showCandidate(nullptr);
}

void EvalDetailsView::showCandidate(const Candidate *c)
{
    m_text->setHtml(c ? html(*c) : QStringLiteral("<p>%1</p>").arg(tr("No candidate selected")));
}

QString EvalDetailsView::plainText() const
{
    return m_text->toPlainText();
}

QString EvalDetailsView::html(const Candidate &c)
{
    QString h;
    const QString name = c.label.isEmpty() ? c.id : QStringLiteral("%1  %2").arg(c.id, c.label);
    h += QStringLiteral("<p style='margin-bottom:2px'><b>%1</b></p>").arg(esc(name));
    if (!c.eval) {
        h += QStringLiteral("<p>%1</p>").arg(tr("Not evaluated yet (%1).").arg(esc(toName(c.status))));
        if (!c.note.isEmpty())
            h += QStringLiteral("<p>%1</p>").arg(esc(c.note));
        return h;
    }
    const EvalResult &r = *c.eval;

    // Status and reason first: what a person reads before anything else.
    h += QStringLiteral("<p><span style='color:%1; font-weight:bold'>%2</span> (%3)%4</p>")
             .arg(statusColour(r), esc(icons::statusText(c)), esc(toName(r.status)),
                  r.reason.isEmpty() ? QString() : QStringLiteral(": ") + esc(r.reason));
    if (!c.note.isEmpty())
        h += QStringLiteral("<p><i>%1</i></p>").arg(esc(c.note));

    h += section(tr("Correctness"));
    h += QStringLiteral("<table cellspacing='0' cellpadding='1'>");
    QString trials = QString::number(r.trials);
    if (r.failingTrial >= 0)
        trials += tr(", trial %1 failed first").arg(r.failingTrial);
    h += row(tr("Trials"), esc(trials));
    const bool errOk = std::isfinite(r.maxAbsErr) && r.maxAbsErr <= r.atol;
    h += row(tr("Max error vs fp32"),
             std::isfinite(r.maxAbsErr)
                 ? QStringLiteral("<span style='color:%1'>%2</span> (mean %3; atol %4, rtol %5)")
                       .arg(errOk ? QStringLiteral("#2e9e4a") : QStringLiteral("#d0453a"), sci(r.maxAbsErr), sci(r.meanAbsErr),
                            sci(r.atol), sci(r.rtol))
                 : tr("not measured"));
    h += row(tr("Max error vs fp64"), std::isfinite(r.maxAbsErrFp64) ? sci(r.maxAbsErrFp64) : tr("not measured"));
    h += QStringLiteral("</table>");

    h += section(tr("Timing (ms)"));
    h += QStringLiteral("<table cellspacing='0' cellpadding='2'><tr><th></th><th align='right'>median</th>"
                        "<th align='right'>std</th><th align='right'>min</th><th align='right'>max</th>"
                        "<th align='right'>cv</th><th align='right'>n</th></tr>");
    h += statsRow(tr("candidate"), r.candidate);
    h += statsRow(tr("PyTorch eager"), r.eager);
    h += statsRow(tr("CUDA graph"), r.graph);
    h += QStringLiteral("</table>");
    auto speedupLine = [&](const Speedup &s, const LatencyStats &base) {
        if (!base.isValid())
            return tr("not measured");
        if (!s.isValid())
            return tr("–");
        QString t = esc(s.text());
        if (std::isfinite(s.relativeSpread))
            t += tr(" &nbsp;(spread ±%1 %)").arg(s.relativeSpread * 100, 0, 'f', 1);
        if (!r.correct())
            t += tr(" &nbsp;<i>not a score: the result is not correct</i>");
        return t;
    };
    h += QStringLiteral("<table cellspacing='0' cellpadding='1'>");
    h += row(tr("Speedup vs CUDA graph"), speedupLine(Speedup::vsGraph(r), r.graph));
    h += row(tr("Speedup vs eager"), speedupLine(Speedup::vsEager(r), r.eager));
    h += QStringLiteral("</table>");

    h += section(tr("Peak device memory"));
    if (r.candidatePeakBytes >= 0 || r.referencePeakBytes >= 0) {
        h += QStringLiteral("<table cellspacing='0' cellpadding='1'>");
        h += row(tr("Candidate"), r.candidatePeakBytes >= 0 ? bytes(r.candidatePeakBytes) : tr("not measured"));
        h += row(tr("Reference"), r.referencePeakBytes >= 0 ? bytes(r.referencePeakBytes) : tr("not measured"));
        if (r.candidatePeakBytes >= 0 && r.referencePeakBytes > 0)
            h += row(tr("Candidate / reference"),
                     QString::number(double(r.candidatePeakBytes) / double(r.referencePeakBytes), 'f', 2) + QStringLiteral("×"));
        h += QStringLiteral("</table>");
    } else {
        h += QStringLiteral("<p>%1</p>").arg(tr("Not measured (CPU run, or the evaluation did not get that far)."));
    }
    if (!r.memoryNote.isEmpty())
        h += QStringLiteral("<p>%1</p>").arg(esc(r.memoryNote));

    h += section(tr("Run-time integrity checks"));
    if (r.runtimeChecks.isEmpty()) {
        h += QStringLiteral("<p>%1</p>").arg(tr("None reported."));
    } else {
        QList<Verdict> checks = r.runtimeChecks;
        // Flagged first: the reader looks for what went wrong.
        std::stable_sort(checks.begin(), checks.end(), [](const Verdict &a, const Verdict &b) {
            return (a.outcome == Outcome::Yes) > (b.outcome == Outcome::Yes);
        });
        h += QStringLiteral("<table cellspacing='0' cellpadding='1'>");
        for (const Verdict &v : checks) {
            const bool flagged = v.outcome == Outcome::Yes && v.severity >= Severity::Warning;
            h += QStringLiteral("<tr><td style='padding-right:8px'>%1</td><td style='padding-right:8px'>%2</td><td>%3</td></tr>")
                     .arg(esc(v.detector),
                          QStringLiteral("<span style='color:%1'>%2</span>")
                              .arg(flagged ? QStringLiteral("#d0453a") : QStringLiteral("#2e9e4a"), esc(outcomeLabel(v))),
                          esc(v.summary));
        }
        h += QStringLiteral("</table>");
    }

    h += section(tr("Profile"));
    if (!r.profile.isEmpty()) {
        h += QStringLiteral("<table cellspacing='0' cellpadding='1'>");
        for (auto it = r.profile.cbegin(); it != r.profile.cend(); ++it)
            h += row(it.key(), num(it.value(), 6));
        h += QStringLiteral("</table>");
    } else {
        h += QStringLiteral("<p>%1</p>").arg(r.profileNote.isEmpty() ? tr("Not profiled.") : esc(r.profileNote));
    }

    h += section(tr("Where it ran"));
    h += QStringLiteral("<table cellspacing='0' cellpadding='1'>");
    h += row(tr("Device"), esc(r.device.isEmpty() ? tr("unknown") : r.device));
    if (!r.torchVersion.isEmpty())
        h += row(tr("torch"), esc(r.torchVersion));
    h += row(tr("Sandbox"), esc(r.sandboxed ? tr("yes") : tr("no")) + (r.sandboxNote.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(esc(r.sandboxNote))));
    h += row(tr("Wall time"), tr("%1 s").arg(r.wallSeconds, 0, 'f', 1));
    h += QStringLiteral("</table>");

    h += section(tr("Log tail"));
    h += r.logTail.trimmed().isEmpty() ? QStringLiteral("<p>%1</p>").arg(tr("(empty)"))
                                       : QStringLiteral("<pre style='white-space:pre-wrap'>%1</pre>").arg(esc(r.logTail));
    return h;
}

} // namespace kwb
