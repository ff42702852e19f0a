// SPDX-License-Identifier: MIT
#include "pipeline/runsummary.h"

#include <QTextStream>

#include <cmath>
#include <functional>

namespace kwb::pipeline {

namespace {
QString num(double v, int prec, const QString &suffix = {})
{
    return std::isfinite(v) ? QString::number(v, 'f', prec) + suffix : QStringLiteral("-");
}
} // namespace

QString formatRunSummary(const Run &run)
{
    QString text;
    QTextStream s(&text);
    const QString best = run.info.bestCandidateId.isEmpty() && run.best() ? run.best()->id : run.info.bestCandidateId;
    s << QStringLiteral("%1  %2  %3\n").arg(run.info.id, run.info.taskName, toName(run.info.state));
    s << QStringLiteral("  %1 %2 %3 %4 %5 %6\n")
             .arg(QStringLiteral("candidate"), -44)
             .arg(QStringLiteral("status"), -16)
             .arg(QStringLiteral("ms"), 10)
             .arg(QStringLiteral("x eager"), 8)
             .arg(QStringLiteral("x graph"), 8)
             .arg(QStringLiteral("note"));
    std::function<void(const QString &, int)> walk = [&](const QString &parent, int depth) {
        for (const Candidate *c : run.children(parent)) {
            QString status = toName(c->status);
            if (c->eval && c->status != CandidateStatus::Rejected)
                status = toName(c->eval->status);
            else if (c->eval && c->status == CandidateStatus::Rejected)
                status = QStringLiteral("rejected");
            const QString name = QStringLiteral("%1%2%3 %4")
                                     .arg(QString(depth * 2, QLatin1Char(' ')), c->id == best ? QStringLiteral("*") : QStringLiteral(" "),
                                          c->id, c->label);
            const double ms = c->eval && c->eval->candidate.isValid() ? c->eval->candidate.medianMs
                              : c->eval && c->kind == CandidateKind::Baseline ? c->eval->eager.medianMs
                                                                              : NAN;
            s << QStringLiteral("  %1 %2 %3 %4 %5 %6\n")
                     .arg(name.left(44), -44)
                     .arg(status, -16)
                     .arg(num(ms, 3), 10)
                     .arg(c->isCorrect() ? num(c->eval->speedupVsEager(), 2) : QStringLiteral("-"), 8)
                     .arg(c->isCorrect() ? num(c->eval->speedupVsGraph(), 2) : QStringLiteral("-"), 8)
                     .arg(c->note.left(70));
            walk(c->id, depth + 1);
        }
    };
    walk(QString(), 0);
    if (!run.gates.isEmpty()) {
        s << "gates:\n";
        for (const auto &g : run.gates)
            s << "  " << g.gate << ": " << g.decision << (g.reason.isEmpty() ? QString() : QStringLiteral(" (") + g.reason + QLatin1Char(')'))
              << "\n";
    }
    return text;
}

} // namespace kwb::pipeline
