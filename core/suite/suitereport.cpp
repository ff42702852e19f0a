// SPDX-License-Identifier: MIT
#include "suite/suitereport.h"

#include "report/report.h"
#include "store/runstore.h"

#include <QDir>
#include <QSaveFile>

#include <cmath>

namespace kwb::suite {

namespace {

QString speed(double v)
{
    return std::isfinite(v) ? QString::number(v, 'f', 2) + QLatin1Char('x') : QStringLiteral("–");
}

QString money(double v)
{
    return QLatin1Char('$') + QString::number(v, 'f', 4);
}

QString escapeHtml(const QString &s)
{
    return s.toHtmlEscaped();
}

QString escapeMd(QString s)
{
    return s.replace(QLatin1Char('|'), QStringLiteral("\\|")).replace(QLatin1Char('\n'), QLatin1Char(' '));
}

struct Row {
    QString task, level, state, correct, eager, graph, flags, cands, tokens, cost, time, reason, link;
    bool failing = false, flagged = false;
};

Row rowOf(const SuiteEntry &e, const QString &ext)
{
    Row r;
    r.task = e.taskName;
    r.level = e.level > 0 ? QString::number(e.level) : QStringLiteral("–");
    r.state = toName(e.state);
    r.correct = e.correct ? QStringLiteral("yes") : QStringLiteral("no");
    r.eager = speed(e.speedupVsEager);
    r.graph = speed(e.speedupVsGraph);
    r.flags = e.integrityFlags.isEmpty() ? QStringLiteral("–") : e.integrityFlags.join(QStringLiteral(", "));
    r.cands = QString::number(e.candidates);
    r.tokens = QString::number(e.tokens);
    r.cost = money(e.costUsd);
    r.time = QString::number(e.wallSeconds, 'f', 1) + QStringLiteral(" s");
    r.reason = e.failureReason;
    r.link = runReportLink(e, ext);
    r.failing = e.failing();
    r.flagged = e.flagged();
    return r;
}

QStringList totalsLines(const SuiteTotals &t)
{
    return {QStringLiteral("Tasks: %1 (%2 done, %3 failed to run)").arg(t.tasks).arg(t.done).arg(t.failed),
            QStringLiteral("Correct: %1 of %2").arg(t.correct).arg(t.tasks),
            QStringLiteral("Faster than PyTorch eager: %1").arg(t.fasterThanEager),
            QStringLiteral("Faster than the CUDA graph: %1").arg(t.fasterThanGraph),
            QStringLiteral("Geometric-mean speedup of the correct tasks: %1 vs eager, %2 vs the CUDA graph")
                .arg(speed(t.geomeanVsEager), speed(t.geomeanVsGraph)),
            QStringLiteral("Flagged (integrity): %1").arg(t.flagged),
            QStringLiteral("Tokens: %1, cost: %2, run time (sum over tasks): %3 s")
                .arg(t.tokens)
                .arg(money(t.costUsd), QString::number(t.wallSeconds, 'f', 1))};
}

} // namespace

QString runReportLink(const SuiteEntry &e, const QString &extension)
{
    return e.runDir.isEmpty() ? QString() : e.runDir + QStringLiteral("/report.") + extension;
}

QString renderSuiteMarkdown(const Suite &suite, const QString &title)
{
    QString md;
    md += QStringLiteral("# Suite: %1\n\n").arg(escapeMd(title));
    for (const auto &l : totalsLines(totals(suite)))
        md += QStringLiteral("- ") + l + QLatin1Char('\n');
    md += QStringLiteral("\n## Tasks (failing first)\n\n");
    md += QStringLiteral("| task | level | state | correct | vs eager | vs graph | integrity flags | candidates | tokens | cost | time | reason |\n");
    md += QStringLiteral("|---|---|---|---|---:|---:|---|---:|---:|---:|---:|---|\n");
    for (const auto &e : sortedFailingFirst(suite.entries)) {
        const Row r = rowOf(e, QStringLiteral("md"));
        const QString task = r.link.isEmpty() ? escapeMd(r.task) : QStringLiteral("[%1](%2)").arg(escapeMd(r.task), r.link);
        md += QStringLiteral("| %1 | %2 | %3 | %4 | %5 | %6 | %7 | %8 | %9 | %10 | %11 | %12 |\n")
                  .arg(task, r.level, r.state, r.correct, r.eager, r.graph, escapeMd(r.flags), r.cands, r.tokens)
                  .arg(r.cost, r.time, escapeMd(r.reason));
    }
    return md;
}

QString renderSuiteHtml(const Suite &suite, const QString &title)
{
    QString h;
    h += QStringLiteral("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>Suite: %1</title>\n").arg(escapeHtml(title));
    h += QStringLiteral(
        "<style>\n"
        "body{font-family:system-ui,sans-serif;margin:2em;color:#222}\n"
        "table{border-collapse:collapse;font-size:14px}\n"
        "th,td{border:1px solid #ccc;padding:4px 8px;text-align:left}\n"
        "td.num{text-align:right;font-variant-numeric:tabular-nums}\n"
        "tr.failing td{background:#fdecea}\n"
        "tr.flagged td{background:#fff4e5}\n"
        "ul.totals li{margin:2px 0}\n"
        "</style>\n</head>\n<body>\n");
    h += QStringLiteral("<h1>Suite: %1</h1>\n<ul class=\"totals\">\n").arg(escapeHtml(title));
    for (const auto &l : totalsLines(totals(suite)))
        h += QStringLiteral("<li>%1</li>\n").arg(escapeHtml(l));
    h += QStringLiteral("</ul>\n<h2>Tasks (failing first)</h2>\n<table>\n<tr><th>task</th><th>level</th><th>state</th><th>correct</th>"
                        "<th>vs eager</th><th>vs graph</th><th>integrity flags</th><th>candidates</th><th>tokens</th>"
                        "<th>cost</th><th>time</th><th>reason</th></tr>\n");
    for (const auto &e : sortedFailingFirst(suite.entries)) {
        const Row r = rowOf(e, QStringLiteral("html"));
        const QString cls = r.failing ? QStringLiteral(" class=\"failing\"") : r.flagged ? QStringLiteral(" class=\"flagged\"") : QString();
        const QString task = r.link.isEmpty() ? escapeHtml(r.task)
                                              : QStringLiteral("<a href=\"%1\">%2</a>").arg(escapeHtml(r.link), escapeHtml(r.task));
        h += QStringLiteral("<tr%1><td>%2</td><td>%3</td><td>%4</td><td>%5</td><td class=\"num\">%6</td><td class=\"num\">%7</td>"
                            "<td>%8</td><td class=\"num\">%9</td>")
                 .arg(cls, task, r.level, r.state, r.correct, r.eager, r.graph, escapeHtml(r.flags), r.cands);
        h += QStringLiteral("<td class=\"num\">%1</td><td class=\"num\">%2</td><td class=\"num\">%3</td><td>%4</td></tr>\n")
                 .arg(r.tokens, r.cost, r.time, escapeHtml(r.reason));
    }
    h += QStringLiteral("</table>\n</body>\n</html>\n");
    return h;
}

QStringList writeSuiteReports(const QString &suiteDir, const Suite &suite, QString *error)
{
    auto write = [error](const QString &path, const QString &text) {
        QSaveFile f(path);
        if (!f.open(QIODevice::WriteOnly) || f.write(text.toUtf8()) < 0 || !f.commit()) {
            if (error)
                *error = QStringLiteral("cannot write %1: %2").arg(path, f.errorString());
            return false;
        }
        return true;
    };
    const QDir dir(suiteDir);
    for (const auto &e : suite.entries) {
        if (e.runDir.isEmpty())
            continue;
        const auto run = store::openRun(dir.absoluteFilePath(e.runDir));
        if (!run)
            continue; // the link shows the run is missing; the suite report is still useful
        if (!write(dir.absoluteFilePath(runReportLink(e, QStringLiteral("md"))), report::renderMarkdown(*run))
            || !write(dir.absoluteFilePath(runReportLink(e, QStringLiteral("html"))), report::renderHtml(*run)))
            return {};
    }
    const QString title = dir.dirName();
    const QString md = dir.filePath(QStringLiteral("suite-report.md"));
    const QString html = dir.filePath(QStringLiteral("suite-report.html"));
    if (!write(md, renderSuiteMarkdown(suite, title)) || !write(html, renderSuiteHtml(suite, title)))
        return {};
    return {html, md};
}

} // namespace kwb::suite
