// SPDX-License-Identifier: MIT
#include "report/report.h"

#include <QHash>
#include <QJsonDocument>
#include <QSet>

#include <algorithm>
#include <cmath>

namespace kwb::report {

namespace {

// ---- numbers (QString::number is locale-independent, so reports are reproducible) ----------

QString ms(double v)
{
    if (!std::isfinite(v))
        return QStringLiteral("-");
    return QString::number(v, 'f', v >= 100 ? 1 : v >= 0.1 ? 3 : 4);
}

QString times(double v)
{
    return std::isfinite(v) ? QString::number(v, 'f', 2) + u'x' : QStringLiteral("-");
}

QString sci(double v)
{
    return std::isfinite(v) ? QString::number(v, 'e', 1) : QStringLiteral("-");
}

QString money(double v)
{
    return QStringLiteral("$") + QString::number(v, 'f', 4);
}

QString date(const QDateTime &d)
{
    return d.isValid() ? d.toUTC().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss 'UTC'")) : QStringLiteral("-");
}

// ---- facts about candidates ---------------------------------------------------------------

bool hasLatency(const Candidate &c)
{
    return c.eval && c.eval->runnable() && c.eval->candidate.isValid();
}

int verdictCount(const Candidate &c)
{
    return int(c.verdicts.size() + (c.eval ? c.eval->runtimeChecks.size() : 0));
}

QList<Verdict> allVerdicts(const Candidate &c)
{
    QList<Verdict> vs = c.verdicts;
    if (c.eval)
        vs += c.eval->runtimeChecks;
    return vs;
}

/// The note column of the candidate tables: the failure reason first, then the candidate's note
/// and a gate override's reason.
QString noteOf(const Candidate &c)
{
    QString note = c.note;
    if (c.eval && !c.eval->correct() && !c.eval->reason.isEmpty())
        note = c.eval->reason + (note.isEmpty() ? QString() : QStringLiteral("; ") + note);
    if (!c.overrideReason.isEmpty())
        note += QStringLiteral(" (override: %1)").arg(c.overrideReason);
    return note;
}

QString statusText(const Candidate &c)
{
    if (c.status == CandidateStatus::Evaluated && c.eval)
        return toName(c.eval->status);
    return toName(c.status);
}

/// The eager / graph baseline a chart draws as a line: the median over all evaluations that timed it.
double baselineMs(const Run &run, bool graph)
{
    QList<double> v;
    for (const auto &c : run.candidates)
        if (c.eval) {
            const LatencyStats &s = graph ? c.eval->graph : c.eval->eager;
            if (s.isValid())
                v.append(s.medianMs);
        }
    if (v.isEmpty())
        return std::nan("");
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

struct TokenRow {
    QString callType;
    int calls = 0;
    qint64 input = 0;
    qint64 output = 0;
    double cost = 0;
    bool estimated = false;
    int errors = 0;
};

/// Tokens per call type, in order of first appearance, plus a total row at the end.
QList<TokenRow> tokenRows(const Run &run)
{
    QList<TokenRow> rows;
    QHash<QString, qsizetype> index;
    TokenRow total;
    total.callType = QStringLiteral("total");
    for (const auto &x : run.exchanges) {
        const QString type = x.callType.isEmpty() ? QStringLiteral("(none)") : x.callType;
        auto it = index.find(type);
        if (it == index.end()) {
            it = index.insert(type, rows.size());
            rows.append(TokenRow{type});
        }
        for (TokenRow *r : {&rows[*it], &total}) {
            ++r->calls;
            r->input += x.inputTokens;
            r->output += x.outputTokens;
            r->cost += x.costUsd;
            r->estimated = r->estimated || x.tokensEstimated;
            r->errors += x.error.isEmpty() ? 0 : 1;
        }
    }
    if (!rows.isEmpty())
        rows.append(total);
    return rows;
}

QString tokens(qint64 n, bool estimated)
{
    return (estimated ? QStringLiteral("~") : QString()) + QString::number(n);
}

QString mdCell(QString s)
{
    // Raw HTML in Markdown is live: escape it, and pipes would split the cell.
    s.replace(u'\n', u' ').replace(u'\r', u' ').replace(u'|', QStringLiteral("\\|"));
    s.replace(u'<', QStringLiteral("&lt;")).replace(u'>', QStringLiteral("&gt;"));
    return s.trimmed();
}

QString oneLine(const QString &s, int max = 100)
{
    QString t = s.simplified();
    if (t.size() > max)
        t = t.left(max - 1) + QStringLiteral("…");
    return t;
}

QString evidenceLines(const Evidence &e)
{
    if (e.firstLine <= 0)
        return {};
    return e.lastLine > e.firstLine ? QStringLiteral("lines %1-%2").arg(e.firstLine).arg(e.lastLine)
                                    : QStringLiteral("line %1").arg(e.firstLine);
}

QString h(const QString &s)
{
    return s.toHtmlEscaped();
}

} // namespace

QList<TreeRow> treeOrder(const Run &run)
{
    QHash<QString, QList<const Candidate *>> children;
    QSet<QString> ids;
    for (const auto &c : run.candidates)
        ids.insert(c.id);
    QList<const Candidate *> roots;
    for (const auto &c : run.candidates) {
        if (c.parentId.isEmpty() || !ids.contains(c.parentId) || c.parentId == c.id)
            roots.append(&c);
        else
            children[c.parentId].append(&c);
    }
    QList<TreeRow> out;
    out.reserve(run.candidates.size());
    QSet<QString> seen;
    // Iterative depth-first walk: deep repair chains must not overflow the stack.
    QList<TreeRow> stack;
    auto walk = [&](const Candidate *root) {
        stack.append({root, 0});
        while (!stack.isEmpty()) {
            const TreeRow row = stack.takeLast();
            if (seen.contains(row.candidate->id))
                continue;
            seen.insert(row.candidate->id);
            out.append(row);
            const auto kids = children.value(row.candidate->id);
            for (auto it = kids.crbegin(); it != kids.crend(); ++it)
                stack.append({*it, row.depth + 1});
        }
    };
    for (const Candidate *r : std::as_const(roots))
        walk(r);
    // Candidates on a parent cycle are reachable from no root: show them anyway, as roots.
    for (const auto &c : run.candidates)
        if (!seen.contains(c.id))
            walk(&c);
    return out;
}

namespace {

/// The best candidate's id: the run's choice, else the fastest eligible one (computed once per render).
QString bestIdOf(const Run &run)
{
    if (!run.info.bestCandidateId.isEmpty())
        return run.info.bestCandidateId;
    const Candidate *b = run.best();
    return b ? b->id : QString();
}

QString markOf(const Candidate &c, const QString &bestId)
{
    QString mark;
    switch (c.status) {
    case CandidateStatus::Pending:
        mark = QStringLiteral("…");
        break;
    case CandidateStatus::Evaluating:
        mark = QStringLiteral("~");
        break;
    case CandidateStatus::Rejected:
        mark = QStringLiteral("-");
        break;
    case CandidateStatus::Evaluated:
        if (c.hasIntegrityViolation() && c.overrideReason.isEmpty())
            mark = QStringLiteral("!");
        else
            mark = c.isCorrect() ? QStringLiteral("✓") : QStringLiteral("✗");
        break;
    }
    if (!bestId.isEmpty() && c.id == bestId)
        mark += u'*';
    return mark;
}

} // namespace

QString statusMark(const Run &run, const Candidate &c)
{
    return markOf(c, bestIdOf(run));
}

QString renderTextTree(const Run &run)
{
    const RunInfo &i = run.info;
    QString out;
    out += QStringLiteral("run %1\n").arg(i.id.isEmpty() ? QStringLiteral("(unnamed)") : i.id);
    out += QStringLiteral("task %1  provider %2%3  state %4  created %5\n")
               .arg(i.taskName, i.provider, i.model.isEmpty() ? QString() : u'/' + i.model, toName(i.state),
                    date(i.createdAt));
    const Candidate *best = !i.bestCandidateId.isEmpty() ? run.candidate(i.bestCandidateId) : run.best();
    out += QStringLiteral("%1 candidates, %2 LLM calls").arg(run.candidates.size()).arg(run.exchanges.size());
    if (best && best->eval)
        out += QStringLiteral(", best %1 %2 ms (%3 vs eager, %4 vs graph)")
                   .arg(best->id, ms(best->eval->candidate.medianMs), times(best->eval->speedupVsEager()),
                        times(best->eval->speedupVsGraph()));
    out += u'\n';
    if (run.candidates.isEmpty())
        return out + QStringLiteral("(no candidates)\n");

    const QList<TreeRow> rows = treeOrder(run);
    const QString bestId = bestIdOf(run);
    qsizetype idWidth = 0, labelWidth = 5;
    for (const auto &r : rows) {
        idWidth = std::max(idWidth, r.depth * 2 + r.candidate->id.size());
        labelWidth = std::max<qsizetype>(labelWidth, std::min<qsizetype>(r.candidate->label.size(), 28));
    }
    out += u'\n';
    out += QStringLiteral("id").leftJustified(idWidth + 2) + QStringLiteral("kind").leftJustified(14)
        + QStringLiteral("label").leftJustified(labelWidth + 2) + QStringLiteral("st  ")
        + QStringLiteral("median ms ± std").leftJustified(20) + QStringLiteral("eager   graph   max err  verdicts\n");
    for (const auto &r : rows) {
        const Candidate &c = *r.candidate;
        QString line = (QString(r.depth * 2, u' ') + c.id).leftJustified(idWidth + 2)
            + toName(c.kind).leftJustified(14) + oneLine(c.label, 28).leftJustified(labelWidth + 2)
            + markOf(c, bestId).leftJustified(4);
        if (hasLatency(c)) {
            const EvalResult &e = *c.eval;
            line += (ms(e.candidate.medianMs) + QStringLiteral(" ± ") + ms(e.candidate.stdMs)).leftJustified(20)
                + times(e.speedupVsEager()).leftJustified(8) + times(e.speedupVsGraph()).leftJustified(8)
                + sci(e.maxAbsErr).leftJustified(9);
        } else {
            line += statusText(c).leftJustified(20 + 8 + 8)
                + (c.eval ? sci(c.eval->maxAbsErr) : QStringLiteral("-")).leftJustified(9);
        }
        line += QString::number(verdictCount(c));
        out += line.trimmed().isEmpty() ? QString() : line + u'\n';
    }
    if (const QString profiles = renderProfilesText(run); !profiles.isEmpty())
        out += u'\n' + profiles;
    return out;
}

QList<ProfilePair> profilePairs(const Run &run)
{
    QList<ProfilePair> pairs;
    for (const auto &r : treeOrder(run)) {
        const Candidate *c = r.candidate;
        if (!c->shownProfile())
            continue;
        const Candidate *anc = run.candidate(c->parentId);
        for (qsizetype hops = 0; anc && !anc->shownProfile(); ++hops) // hops: a damaged run may hold a cycle
            anc = hops < run.candidates.size() ? run.candidate(anc->parentId) : nullptr;
        pairs.append(ProfilePair{anc, c});
    }
    return pairs;
}

QString renderProfilesText(const Run &run)
{
    QString out;
    for (const ProfilePair &pair : profilePairs(run)) {
        const Candidate &c = *pair.after;
        const KernelProfile p = *c.shownProfile();
        if (out.isEmpty())
            out += QStringLiteral("profiles (Nsight Compute)\n");
        out += QStringLiteral("%1 %2: ").arg(c.id, c.label);
        if (!p.measured()) {
            out += p.note + u'\n';
            continue;
        }
        const Roofline roof = rooflineOf(p.metrics);
        out += (roof.isValid() ? roof.details() : QStringLiteral("no roofline (no DRAM/FLOP counts or device peaks)"));
        if (std::isfinite(p.seconds))
            out += QStringLiteral("; profiled in %1 s").arg(p.seconds, 0, 'f', 1);
        out += u'\n';
        if (!p.note.isEmpty())
            out += QStringLiteral("  note: %1\n").arg(p.note);
        QStringList items;
        for (auto it = p.metrics.cbegin(); it != p.metrics.cend(); ++it)
            items << QStringLiteral("%1 %2").arg(it.key(), formatProfileValue(it.key(), it.value()));
        out += QStringLiteral("  ") + items.join(QStringLiteral(", ")) + u'\n';
    }
    return out;
}

// ---- Markdown -------------------------------------------------------------------------------

namespace {

QString mdSummary(const Run &run)
{
    const RunInfo &i = run.info;
    const Candidate *best = !i.bestCandidateId.isEmpty() ? run.candidate(i.bestCandidateId) : run.best();
    int evaluated = 0, correct = 0;
    for (const auto &c : run.candidates) {
        evaluated += c.eval ? 1 : 0;
        correct += c.isCorrect() ? 1 : 0;
    }
    QString s;
    s += QStringLiteral("| | |\n|---|---|\n");
    auto row = [&](const QString &k, const QString &v) { s += QStringLiteral("| %1 | %2 |\n").arg(k, mdCell(v)); };
    row(QStringLiteral("Task"), i.taskName + (i.taskFile.isEmpty() ? QString() : QStringLiteral(" (`%1`)").arg(i.taskFile)));
    row(QStringLiteral("Provider / model"), i.provider + QStringLiteral(" / ") + i.model);
    row(QStringLiteral("Created"), date(i.createdAt));
    row(QStringLiteral("State"), toName(i.state));
    row(QStringLiteral("Candidates"), QStringLiteral("%1 (%2 evaluated, %3 correct)").arg(run.candidates.size()).arg(evaluated).arg(correct));
    if (best && best->eval)
        row(QStringLiteral("Best"), QStringLiteral("%1 (%2): %3 ms, %4 vs eager, %5 vs CUDA graph")
                                        .arg(best->id, best->label, ms(best->eval->candidate.medianMs),
                                             times(best->eval->speedupVsEager()), times(best->eval->speedupVsGraph())));
    else
        row(QStringLiteral("Best"), QStringLiteral("none"));
    const auto tok = tokenRows(run);
    if (!tok.isEmpty())
        row(QStringLiteral("LLM"), QStringLiteral("%1 calls, %2 tokens, %3")
                                       .arg(tok.last().calls)
                                       .arg(tokens(tok.last().input + tok.last().output, tok.last().estimated),
                                            money(tok.last().cost)));
    if (!i.note.isEmpty())
        row(QStringLiteral("Note"), i.note);
    if (!i.settings.isEmpty())
        row(QStringLiteral("Settings"), QStringLiteral("`%1`").arg(QString::fromUtf8(QJsonDocument(i.settings).toJson(QJsonDocument::Compact))));
    return s;
}

QString mdTable(const Run &run)
{
    QString s = QStringLiteral("| id | parent | kind | label | status | median ms | ± std | vs eager | vs graph | max err | verdicts | note |\n"
                               "|---|---|---|---|---|---:|---:|---:|---:|---:|---:|---|\n");
    const QString bestId = bestIdOf(run);
    for (const auto &r : treeOrder(run)) {
        const Candidate &c = *r.candidate;
        const bool lat = hasLatency(c);
        const EvalResult *e = c.eval ? &*c.eval : nullptr;
        const QString note = noteOf(c);
        // Cells are joined, not substituted with chained arg(): a label containing "%1" stays as it is.
        const QStringList cells{c.id,
                                c.parentId.isEmpty() ? QStringLiteral("-") : c.parentId,
                                toName(c.kind),
                                mdCell(c.label),
                                markOf(c, bestId) + u' ' + statusText(c),
                                lat ? ms(e->candidate.medianMs) : QStringLiteral("-"),
                                lat ? ms(e->candidate.stdMs) : QStringLiteral("-"),
                                lat ? times(e->speedupVsEager()) : QStringLiteral("-"),
                                lat ? times(e->speedupVsGraph()) : QStringLiteral("-"),
                                e ? sci(e->maxAbsErr) : QStringLiteral("-"),
                                QString::number(verdictCount(c)),
                                mdCell(oneLine(note, 120))};
        s += QStringLiteral("| ") + cells.join(QStringLiteral(" | ")) + QStringLiteral(" |\n");
    }
    return s;
}

QString mdBars(const Run &run)
{
    double top = 0;
    qsizetype labelWidth = 0;
    for (const auto &c : run.candidates)
        if (hasLatency(c)) {
            top = std::max(top, c.eval->candidate.medianMs);
            labelWidth = std::max(labelWidth, c.id.size());
        }
    const double eager = baselineMs(run, false), graph = baselineMs(run, true);
    for (double b : {eager, graph})
        if (std::isfinite(b))
            top = std::max(top, b);
    if (top <= 0)
        return QStringLiteral("No candidate has a latency yet.\n");
    auto bar = [&](const QString &label, double v) {
        const int n = std::max(1, int(std::lround(v / top * 40)));
        return QStringLiteral("%1 %2 %3 ms\n").arg(label.leftJustified(std::max<qsizetype>(labelWidth, 5)), QString(n, QChar(0x2588)).leftJustified(40), ms(v));
    };
    QString s = QStringLiteral("```\n");
    if (std::isfinite(eager))
        s += bar(QStringLiteral("eager"), eager);
    if (std::isfinite(graph))
        s += bar(QStringLiteral("graph"), graph);
    for (const auto &r : treeOrder(run))
        if (hasLatency(*r.candidate))
            s += bar(r.candidate->id, r.candidate->eval->candidate.medianMs);
    return s + QStringLiteral("```\n");
}

QString mdVerdicts(const Run &run)
{
    QString s;
    for (const auto &r : treeOrder(run)) {
        const Candidate &c = *r.candidate;
        const QList<Verdict> vs = allVerdicts(c);
        if (vs.isEmpty())
            continue;
        s += QStringLiteral("### %1 — %2 %3\n\n").arg(c.id, toName(c.kind), mdCell(c.label));
        if (!c.overrideReason.isEmpty())
            s += QStringLiteral("Integrity override by a person: %1\n\n").arg(mdCell(c.overrideReason));
        for (const auto &v : vs) {
            s += QStringLiteral("- **%1**: %2, %3%4 — %5\n")
                     .arg(v.detector, toName(v.outcome), toName(v.severity),
                          v.isIntegrityViolation() ? QStringLiteral(" (integrity violation)") : QString(), mdCell(v.summary));
            for (const auto &e : v.evidence) {
                const QString where = evidenceLines(e);
                const bool block = e.text.contains(u'\n');
                const QString inlineText = block ? QString() : QStringLiteral("`%1`").arg(e.text.trimmed());
                s += QStringLiteral("  - %1\n").arg(where.isEmpty() ? inlineText
                                                                    : block ? where + u':' : where + QStringLiteral(": ") + inlineText);
                if (e.text.contains(u'\n'))
                    s += QStringLiteral("    ```\n    %1\n    ```\n").arg(e.text.trimmed().replace(u'\n', QStringLiteral("\n    ")));
            }
            if (!v.suggestedFix.isEmpty())
                s += QStringLiteral("  - suggested fix: %1\n").arg(mdCell(v.suggestedFix));
        }
        s += u'\n';
    }
    return s.isEmpty() ? QStringLiteral("No verdicts.\n\n") : s;
}

QString mdTokens(const Run &run)
{
    const auto rows = tokenRows(run);
    if (rows.isEmpty())
        return QStringLiteral("No LLM calls.\n");
    QString s = QStringLiteral("| call type | calls | input | output | total | cost | errors |\n|---|---:|---:|---:|---:|---:|---:|\n");
    for (const auto &r : rows) {
        const bool total = &r == &rows.last();
        const QString b = total ? QStringLiteral("**") : QString();
        s += QStringLiteral("| %1%2%1 | %3 | %4 | %5 | %6 | %7 | %8 |\n")
                 .arg(b, mdCell(r.callType), QString::number(r.calls), tokens(r.input, r.estimated),
                      tokens(r.output, r.estimated), tokens(r.input + r.output, r.estimated), money(r.cost),
                      QString::number(r.errors));
    }
    if (rows.last().estimated)
        s += QStringLiteral("\n~ : some token counts are estimates (the provider did not report them).\n");
    return s;
}

QString mdGates(const Run &run)
{
    if (run.gates.isEmpty())
        return QStringLiteral("No gate decisions.\n");
    QString s = QStringLiteral("| at | gate | decision | candidate | reason |\n|---|---|---|---|---|\n");
    for (const auto &g : run.gates)
        s += QStringLiteral("| %1 | %2 | %3 | %4 | %5 |\n")
                 .arg(date(g.at), mdCell(g.gate), mdCell(g.decision), g.candidateId.isEmpty() ? QStringLiteral("-") : g.candidateId,
                      mdCell(g.reason));
    return s;
}

} // namespace

QString renderMarkdown(const Run &run)
{
    QString s;
    s += QStringLiteral("# Kernel Workbench run %1\n\n").arg(run.info.id);
    s += mdSummary(run);
    s += QStringLiteral("\n## Candidate tree\n\n```\n") + renderTextTree(run) + QStringLiteral("```\n");
    s += QStringLiteral("\nMarks: ✓ correct, ✗ failed, ! integrity violation, … pending, ~ evaluating, - rejected, * best.\n");
    s += QStringLiteral("\n## Candidates\n\n") + mdTable(run);
    s += QStringLiteral("\n## Latency\n\n") + mdBars(run);
    s += QStringLiteral("\n## Verdicts\n\n") + mdVerdicts(run);
    s += QStringLiteral("## Tokens per call type\n\n") + mdTokens(run);
    s += QStringLiteral("\n## Gates and decisions\n\n") + mdGates(run);
    return s;
}

// ---- HTML -----------------------------------------------------------------------------------

namespace {

const char *kCss = R"(
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:2em auto;max-width:1100px;padding:0 1em;color:#1d2430;background:#fff}
h1{font-size:1.5em;margin-bottom:.2em}h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #d8dde6;padding-bottom:.2em}
h3{font-size:1em;margin:1.2em 0 .3em}
table{border-collapse:collapse;margin:.5em 0;font-size:13px}th,td{border:1px solid #d8dde6;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f2f4f8}td.n{text-align:right;font-variant-numeric:tabular-nums}tr.total td{font-weight:600}
pre{background:#f6f8fa;border:1px solid #d8dde6;padding:.6em;overflow:auto;font-size:12px}
code{font-family:ui-monospace,"DejaVu Sans Mono",monospace}
.ok{color:#1a7f37}.bad{color:#cf222e}.warn{color:#9a6700}.muted{color:#6e7781}
.tree td:first-child{font-family:ui-monospace,"DejaVu Sans Mono",monospace;white-space:pre}
ul.ev{margin:.2em 0 .6em 1.2em;padding:0}
svg text{font:11px ui-monospace,"DejaVu Sans Mono",monospace;fill:#1d2430}
@media (prefers-color-scheme:dark){body{background:#0d1117;color:#e6edf3}th{background:#161b22}pre{background:#161b22}
th,td,pre,h2{border-color:#30363d}svg text{fill:#e6edf3}}
)";

QString cssClass(const Candidate &c, const QString &bestId)
{
    const QString m = markOf(c, bestId);
    if (m.startsWith(u'!'))
        return QStringLiteral("warn");
    if (m.startsWith(QStringLiteral("✓")))
        return QStringLiteral("ok");
    if (m.startsWith(QStringLiteral("✗")))
        return QStringLiteral("bad");
    return QStringLiteral("muted");
}

const char *changeClass(ProfileRow::Change c)
{
    switch (c) {
    case ProfileRow::Change::Better:
        return "ok";
    case ProfileRow::Change::Worse:
        return "bad";
    case ProfileRow::Change::Changed:
        return "warn";
    case ProfileRow::Change::None:
        break;
    }
    return "muted";
}

/// Each profiled candidate against its nearest profiled ancestor, side by side, changes marked
/// (empty when no candidate has a profile).
QString htmlProfiles(const Run &run)
{
    const QList<ProfilePair> pairs = profilePairs(run);
    if (pairs.isEmpty())
        return {};
    QString s = QStringLiteral("<h2>Profiles (Nsight Compute)</h2>\n");
    for (const ProfilePair &pair : pairs) {
        const KernelProfile after = *pair.after->shownProfile();
        const KernelProfile before = pair.before ? *pair.before->shownProfile() : KernelProfile();
        const QString afterName = QStringLiteral("%1 %2").arg(pair.after->id, pair.after->label);
        if (pair.before)
            s += QStringLiteral("<h3>%1 → %2</h3>\n").arg(h(QStringLiteral("%1 %2").arg(pair.before->id, pair.before->label)), h(afterName));
        else
            s += QStringLiteral("<h3>%1</h3>\n").arg(h(afterName));
        if (!after.measured() && !before.measured()) {
            s += QStringLiteral("<p class=\"muted\">%1</p>\n").arg(h(after.note));
            continue;
        }
        for (const KernelProfile *p : {&before, &after})
            if (p->measured() || p == &after)
                if (const Roofline r = rooflineOf(p->metrics); r.isValid() || !p->note.isEmpty())
                    s += QStringLiteral("<p>%1: %2</p>\n")
                             .arg(h(p == &after ? afterName : QStringLiteral("%1 %2").arg(pair.before->id, pair.before->label)),
                                  h(r.isValid() ? r.details() + (p->note.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(p->note)) : p->note));
        s += QStringLiteral("<table class=\"profile\">\n<tr><th>metric</th><th>%1</th><th>%2</th><th>change</th></tr>\n")
                 .arg(pair.before ? h(pair.before->id) : QStringLiteral("-"), h(pair.after->id));
        for (const ProfileRow &row : compareProfiles(before, after))
            s += QStringLiteral("<tr><td>%1</td><td class=\"n\">%2</td><td class=\"n\">%3</td><td class=\"n %4\">%5</td></tr>\n")
                     .arg(h(row.label), h(row.beforeText.isEmpty() ? QStringLiteral("—") : row.beforeText),
                          h(row.afterText.isEmpty() ? QStringLiteral("—") : row.afterText), QLatin1String(changeClass(row.change)),
                          h(changeText(row)));
        s += QStringLiteral("</table>\n");
    }
    s += QStringLiteral("<p class=\"muted\">Changes of 5% or more are marked: green better, red worse, amber moved "
                        "(no better or worse direction). Peaks are the device's, as Nsight Compute read them.</p>\n");
    return s;
}

QString svgChart(const Run &run)
{
    QList<const Candidate *> bars;
    double top = 0;
    for (const auto &r : treeOrder(run))
        if (hasLatency(*r.candidate)) {
            bars.append(r.candidate);
            const LatencyStats &s = r.candidate->eval->candidate;
            top = std::max(top, s.medianMs + (std::isfinite(s.stdMs) ? s.stdMs : 0));
        }
    const double eager = baselineMs(run, false), graph = baselineMs(run, true);
    for (double b : {eager, graph})
        if (std::isfinite(b))
            top = std::max(top, b);
    if (bars.isEmpty() || top <= 0)
        return QStringLiteral("<p class=\"muted\">No candidate has a latency yet.</p>\n");
    top *= 1.08;
    const int left = 150, plot = 560, rowH = 20, topPad = 24;
    const int height = topPad + int(bars.size()) * rowH + 30;
    auto x = [&](double v) { return QString::number(left + v / top * plot, 'f', 1); };
    const QString bestId = bestIdOf(run);
    QString s = QStringLiteral("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%1\" height=\"%2\" viewBox=\"0 0 %1 %2\" role=\"img\" "
                               "aria-label=\"median latency per candidate\">\n")
                    .arg(left + plot + 90)
                    .arg(height);
    s += QStringLiteral("<text x=\"%1\" y=\"14\">median latency (ms), whiskers ± std</text>\n").arg(left);
    for (int i = 0; i < bars.size(); ++i) {
        const Candidate &c = *bars[i];
        const LatencyStats &st = c.eval->candidate;
        const int y = topPad + i * rowH;
        const QString fill = c.id == bestId ? QStringLiteral("#d4a72c")
            : c.hasIntegrityViolation() && c.overrideReason.isEmpty() ? QStringLiteral("#e16f24")
            : c.isCorrect() ? QStringLiteral("#2da44e") : QStringLiteral("#cf222e");
        s += QStringLiteral("<g><title>%1 %2 %3: %4 ms ± %5 (%6)</title>\n")
                 .arg(h(c.id), toName(c.kind), h(c.label), ms(st.medianMs), ms(st.stdMs), toName(c.eval->status));
        s += QStringLiteral("<text x=\"%1\" y=\"%2\" text-anchor=\"end\">%3 %4</text>\n")
                 .arg(left - 6)
                 .arg(y + 14)
                 .arg(h(c.id), toName(c.kind));
        s += QStringLiteral("<rect x=\"%1\" y=\"%2\" width=\"%3\" height=\"%4\" fill=\"%5\"/>\n")
                 .arg(left)
                 .arg(y + 3)
                 .arg(QString::number(st.medianMs / top * plot, 'f', 1))
                 .arg(rowH - 6)
                 .arg(fill);
        if (std::isfinite(st.stdMs) && st.stdMs > 0)
            s += QStringLiteral("<line x1=\"%1\" x2=\"%2\" y1=\"%3\" y2=\"%3\" stroke=\"#57606a\" stroke-width=\"1.5\"/>\n")
                     .arg(x(std::max(0.0, st.medianMs - st.stdMs)), x(st.medianMs + st.stdMs))
                     .arg(y + rowH / 2);
        s += QStringLiteral("<text x=\"%1\" y=\"%2\">%3</text></g>\n")
                 .arg(x(st.medianMs + (std::isfinite(st.stdMs) ? st.stdMs : 0)).toDouble() + 4, 0, 'f', 1)
                 .arg(y + 14)
                 .arg(ms(st.medianMs));
    }
    const int bottom = topPad + int(bars.size()) * rowH;
    auto baseline = [&](double v, const QString &name, const QString &color) {
        if (!std::isfinite(v))
            return QString();
        return QStringLiteral("<line x1=\"%1\" x2=\"%1\" y1=\"%2\" y2=\"%3\" stroke=\"%4\" stroke-dasharray=\"4 3\" stroke-width=\"1.5\"/>"
                              "<text x=\"%1\" y=\"%5\" text-anchor=\"middle\">%6 %7</text>\n")
            .arg(x(v))
            .arg(topPad - 4)
            .arg(bottom + 2)
            .arg(color)
            .arg(name == QLatin1String("eager") ? bottom + 14 : bottom + 26)
            .arg(name, ms(v));
    };
    s += baseline(eager, QStringLiteral("eager"), QStringLiteral("#0969da"));
    s += baseline(graph, QStringLiteral("graph"), QStringLiteral("#8250df"));
    return s + QStringLiteral("</svg>\n");
}

} // namespace

QString renderHtml(const Run &run)
{
    const RunInfo &i = run.info;
    QString s;
    s += QStringLiteral("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>Kernel Workbench run %1</title>\n"
                        "<style>%2</style>\n</head>\n<body>\n")
             .arg(h(i.id), QString::fromLatin1(kCss));
    s += QStringLiteral("<h1>Kernel Workbench run %1</h1>\n").arg(h(i.id));

    // Summary: reuse the Markdown facts, as a table.
    const Candidate *best = !i.bestCandidateId.isEmpty() ? run.candidate(i.bestCandidateId) : run.best();
    int evaluated = 0, correct = 0;
    for (const auto &c : run.candidates) {
        evaluated += c.eval ? 1 : 0;
        correct += c.isCorrect() ? 1 : 0;
    }
    s += QStringLiteral("<table>\n");
    auto row = [&](const QString &k, const QString &vHtml) { s += QStringLiteral("<tr><th>%1</th><td>%2</td></tr>\n").arg(k, vHtml); };
    row(QStringLiteral("Task"), h(i.taskName) + (i.taskFile.isEmpty() ? QString() : QStringLiteral(" <code>%1</code>").arg(h(i.taskFile))));
    row(QStringLiteral("Provider / model"), h(i.provider + QStringLiteral(" / ") + i.model));
    row(QStringLiteral("Created"), h(date(i.createdAt)));
    row(QStringLiteral("State"), h(toName(i.state)));
    row(QStringLiteral("Candidates"), QStringLiteral("%1 (%2 evaluated, %3 correct)").arg(run.candidates.size()).arg(evaluated).arg(correct));
    row(QStringLiteral("Best"), best && best->eval ? h(QStringLiteral("%1 (%2): %3 ms, %4 vs eager, %5 vs CUDA graph")
                                                        .arg(best->id, best->label, ms(best->eval->candidate.medianMs),
                                                             times(best->eval->speedupVsEager()), times(best->eval->speedupVsGraph())))
                                                   : QStringLiteral("none"));
    if (!i.note.isEmpty())
        row(QStringLiteral("Note"), h(i.note));
    if (!i.settings.isEmpty())
        row(QStringLiteral("Settings"), QStringLiteral("<code>%1</code>").arg(h(QString::fromUtf8(QJsonDocument(i.settings).toJson(QJsonDocument::Compact)))));
    s += QStringLiteral("</table>\n");

    s += QStringLiteral("<h2>Latency</h2>\n") + svgChart(run);

    // Tree and table in one: the id column is indented by depth.
    const QString bestId = bestIdOf(run);
    s += QStringLiteral("<h2>Candidates</h2>\n<table class=\"tree\">\n<tr><th>id</th><th>kind</th><th>label</th><th>status</th>"
                        "<th>median ms</th><th>± std</th><th>vs eager</th><th>vs graph</th><th>max err</th><th>verdicts</th><th>note</th></tr>\n");
    for (const auto &r : treeOrder(run)) {
        const Candidate &c = *r.candidate;
        const bool lat = hasLatency(c);
        const EvalResult *e = c.eval ? &*c.eval : nullptr;
        const QString note = noteOf(c);
        s += QStringLiteral("<tr><td>%1%2</td><td>%3</td><td>%4</td><td class=\"%5\">%6 %7</td>")
                 .arg(QString(r.depth * 2, u' '), h(c.id), toName(c.kind), h(c.label), cssClass(c, bestId), h(markOf(c, bestId)),
                      h(statusText(c)));
        s += QStringLiteral("<td class=\"n\">%1</td><td class=\"n\">%2</td><td class=\"n\">%3</td><td class=\"n\">%4</td>"
                            "<td class=\"n\">%5</td><td class=\"n\">%6</td><td>%7</td></tr>\n")
                 .arg(lat ? ms(e->candidate.medianMs) : QStringLiteral("-"), lat ? ms(e->candidate.stdMs) : QStringLiteral("-"),
                      lat ? times(e->speedupVsEager()) : QStringLiteral("-"), lat ? times(e->speedupVsGraph()) : QStringLiteral("-"),
                      e ? sci(e->maxAbsErr) : QStringLiteral("-"), QString::number(verdictCount(c)), h(oneLine(note, 160)));
    }
    s += QStringLiteral("</table>\n<p class=\"muted\">Marks: ✓ correct, ✗ failed, ! integrity violation, … pending, ~ evaluating, "
                        "- rejected, * best.</p>\n");

    s += htmlProfiles(run);

    s += QStringLiteral("<h2>Verdicts</h2>\n");
    bool anyVerdict = false;
    for (const auto &r : treeOrder(run)) {
        const Candidate &c = *r.candidate;
        const QList<Verdict> vs = allVerdicts(c);
        if (vs.isEmpty())
            continue;
        anyVerdict = true;
        s += QStringLiteral("<h3>%1 — %2 %3</h3>\n").arg(h(c.id), toName(c.kind), h(c.label));
        if (!c.overrideReason.isEmpty())
            s += QStringLiteral("<p class=\"warn\">Integrity override by a person: %1</p>\n").arg(h(c.overrideReason));
        s += QStringLiteral("<ul>\n");
        for (const auto &v : vs) {
            const QString cls = v.isIntegrityViolation() ? QStringLiteral("bad")
                : v.outcome == Outcome::Yes && v.severity >= Severity::Warning ? QStringLiteral("warn") : QStringLiteral("muted");
            s += QStringLiteral("<li><b>%1</b> <span class=\"%2\">%3, %4%5</span> — %6\n")
                     .arg(h(v.detector), cls, toName(v.outcome), toName(v.severity),
                          v.isIntegrityViolation() ? QStringLiteral(" (integrity violation)") : QString(), h(v.summary));
            if (!v.evidence.isEmpty() || !v.suggestedFix.isEmpty()) {
                s += QStringLiteral("<ul class=\"ev\">\n");
                for (const auto &e : v.evidence) {
                    const QString where = evidenceLines(e);
                    s += QStringLiteral("<li>%1<pre><code>%2</code></pre></li>\n")
                             .arg(where.isEmpty() ? QString() : h(where) + u':', h(e.text));
                }
                if (!v.suggestedFix.isEmpty())
                    s += QStringLiteral("<li>suggested fix: %1</li>\n").arg(h(v.suggestedFix));
                s += QStringLiteral("</ul>\n");
            }
            s += QStringLiteral("</li>\n");
        }
        s += QStringLiteral("</ul>\n");
    }
    if (!anyVerdict)
        s += QStringLiteral("<p class=\"muted\">No verdicts.</p>\n");

    s += QStringLiteral("<h2>Tokens per call type</h2>\n");
    const auto tok = tokenRows(run);
    if (tok.isEmpty()) {
        s += QStringLiteral("<p class=\"muted\">No LLM calls.</p>\n");
    } else {
        s += QStringLiteral("<table>\n<tr><th>call type</th><th>calls</th><th>input</th><th>output</th><th>total</th><th>cost</th><th>errors</th></tr>\n");
        for (const auto &r : tok)
            s += QStringLiteral("<tr%1><td>%2</td><td class=\"n\">%3</td><td class=\"n\">%4</td><td class=\"n\">%5</td>"
                                "<td class=\"n\">%6</td><td class=\"n\">%7</td><td class=\"n\">%8</td></tr>\n")
                     .arg(&r == &tok.last() ? QStringLiteral(" class=\"total\"") : QString(), h(r.callType), QString::number(r.calls),
                          tokens(r.input, r.estimated), tokens(r.output, r.estimated), tokens(r.input + r.output, r.estimated),
                          money(r.cost), QString::number(r.errors));
        s += QStringLiteral("</table>\n");
        if (tok.last().estimated)
            s += QStringLiteral("<p class=\"muted\">~ : some token counts are estimates (the provider did not report them).</p>\n");
    }

    s += QStringLiteral("<h2>Gates and decisions</h2>\n");
    if (run.gates.isEmpty()) {
        s += QStringLiteral("<p class=\"muted\">No gate decisions.</p>\n");
    } else {
        s += QStringLiteral("<table>\n<tr><th>at</th><th>gate</th><th>decision</th><th>candidate</th><th>reason</th></tr>\n");
        for (const auto &g : run.gates)
            s += QStringLiteral("<tr><td>%1</td><td>%2</td><td>%3</td><td>%4</td><td>%5</td></tr>\n")
                     .arg(h(date(g.at)), h(g.gate), h(g.decision), g.candidateId.isEmpty() ? QStringLiteral("-") : h(g.candidateId),
                          h(g.reason));
        s += QStringLiteral("</table>\n");
    }
    s += QStringLiteral("</body>\n</html>\n");
    return s;
}

} // namespace kwb::report
