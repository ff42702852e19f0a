// SPDX-License-Identifier: MIT
#include "policy.h"

#include <functional>

namespace kwb::detect {

namespace {

const Verdict *find(const QList<Verdict> &vs, const QString &detector)
{
    for (const auto &v : vs)
        if (v.detector == detector)
            return &v;
    return nullptr;
}

bool said(const QList<Verdict> &vs, const char *detector)
{
    const Verdict *v = find(vs, QLatin1String(detector));
    return v && v->outcome == Outcome::Yes;
}

bool anyIntegrityViolation(const QList<Verdict> &vs)
{
    for (const auto &v : vs)
        if (v.isIntegrityViolation())
            return true;
    return false;
}

/// A verdict as prompt text: its summary, the evidence lines and the fix.
QString note(const QList<Verdict> &vs, const QString &detector)
{
    const Verdict *v = find(vs, detector);
    if (!v)
        return {};
    QString s = QStringLiteral("%1: %2").arg(v->detector, v->summary);
    for (const auto &e : v->evidence) {
        if (e.firstLine > 0)
            s += QStringLiteral("\n- lines %1-%2: %3").arg(e.firstLine).arg(e.lastLine).arg(e.text);
        else
            s += QStringLiteral("\n- %1").arg(e.text);
    }
    if (!v->suggestedFix.isEmpty())
        s += QStringLiteral("\nFix: ") + v->suggestedFix;
    return s;
}

struct Row {
    PolicyRow text;
    std::function<bool(const QList<Verdict> &)> when;
    bool grid, block, memory; ///< stages, for deciding rows
    std::function<QStringList(const QList<Verdict> &)> notes;
};

// THE POLICY. Read top to bottom: deciding rows (first match sets the stages), then note rows
// (each match adds prompt notes). The seeds' lessons are the reasons.
const QList<Row> &rows()
{
    static const QList<Row> table{
        {{QStringLiteral("integrity_violation"), QStringLiteral("an integrity.* verdict says yes with severity error/critical"),
          QStringLiteral("no tuning stage; re-prompt with the violation"),
          QStringLiteral("tuning a candidate that cannot become best wastes GPU time; it must first compute the task "
                         "itself")},
         anyIntegrityViolation, false, false, false,
         [](const QList<Verdict> &vs) {
             QStringList n;
             for (const auto &v : vs)
                 if (v.isIntegrityViolation())
                     n << note(vs, v.detector);
             return n;
         }},
        {{QStringLiteral("persistent_batch_grid"), QStringLiteral("persistent_kernel = yes and grid_parallelism = yes"),
          QStringLiteral("grid stage only, with the grid verdict in its prompt"),
          QStringLiteral("a persistent kernel over the batch only leaves most SMs idle (37_LSTMCn: 10 programs, "
                         "0.25x); fixing the grid is the one tuning step that helps, block/memory stages break the "
                         "time loop")},
         [](const QList<Verdict> &vs) { return said(vs, "persistent_kernel") && said(vs, "grid_parallelism"); },
         true, false, false,
         [](const QList<Verdict> &vs) { return QStringList{note(vs, QStringLiteral("grid_parallelism"))}; }},
        {{QStringLiteral("persistent_good_grid"), QStringLiteral("persistent_kernel = yes, grid_parallelism not yes"),
          QStringLiteral("skip the grid, block and memory stages"),
          QStringLiteral("the seeds' rule: the three stages destroyed the persistent 39_GRU kernel "
                         "(1.37x -> 0.09x / 0.08x / 0.16x) through register spills and a broken grid")},
         [](const QList<Verdict> &vs) { return said(vs, "persistent_kernel"); }, false, false, false, nullptr},
        {{QStringLiteral("default"), QStringLiteral("otherwise"), QStringLiteral("run the grid, block and memory stages"),
          QStringLiteral("no verdict says the stages would hurt")},
         [](const QList<Verdict> &) { return true; }, true, true, true, nullptr},
        {{QStringLiteral("output_requirement"), QStringLiteral("output_requirement = yes"),
          QStringLiteral("the optimize prompt states the output requirement"),
          QStringLiteral("40_GRUHidden wrote the whole sequence when only h_n was needed (0.20x) because the "
                         "prompt did not say what forward returns"),
          false},
         [](const QList<Verdict> &vs) { return said(vs, "output_requirement"); }, true, true, true,
         [](const QList<Verdict> &vs) {
             const Verdict *v = find(vs, QStringLiteral("output_requirement"));
             return QStringList{QStringLiteral("Output requirement: ") + (v ? v->suggestedFix : QString())};
         }},
        {{QStringLiteral("launch_bound"), QStringLiteral("launch_bound_loop = yes"),
          QStringLiteral("the prompt explains the launch count and asks for the time loop inside the kernel"),
          QStringLiteral("a Python time loop launches thousands of kernels (0.05-0.12x in the seeds); tuning "
                         "each launch cannot fix that"),
          false},
         [](const QList<Verdict> &vs) { return said(vs, "launch_bound_loop"); }, true, true, true,
         [](const QList<Verdict> &vs) { return QStringList{note(vs, QStringLiteral("launch_bound_loop"))}; }},
        {{QStringLiteral("triton_lint"), QStringLiteral("triton_lint = yes"),
          QStringLiteral("the prompt lists the expected compile errors and their fixes"),
          QStringLiteral("the seeds lost candidates to tl.tanh, non-constexpr tl.arange and tensor indexing; a "
                         "lint costs no GPU round trip"),
          false},
         [](const QList<Verdict> &vs) { return said(vs, "triton_lint"); }, true, true, true,
         [](const QList<Verdict> &vs) { return QStringList{note(vs, QStringLiteral("triton_lint"))}; }},
    };
    return table;
}

} // namespace

const QList<PolicyRow> &policyTable()
{
    static const QList<PolicyRow> table = [] {
        QList<PolicyRow> t;
        for (const auto &r : rows())
            t.append(r.text);
        return t;
    }();
    return table;
}

StagePlan planStages(const QList<Verdict> &verdicts)
{
    StagePlan plan;
    bool decided = false;
    QStringList why;
    for (const auto &r : rows()) {
        if (r.text.decidesStages && decided)
            continue;
        if (!r.when(verdicts))
            continue;
        if (r.text.decidesStages) {
            decided = true;
            plan.grid = r.grid;
            plan.block = r.block;
            plan.memory = r.memory;
            plan.rule = r.text.rule;
        }
        why << QStringLiteral("%1: %2, because %3.").arg(r.text.rule, r.text.nextStep, r.text.why);
        if (r.notes)
            for (const auto &n : r.notes(verdicts))
                if (!n.isEmpty())
                    plan.promptNotes << n;
    }
    plan.explanation = why.join(QLatin1Char('\n'));
    return plan;
}

QString describePolicy()
{
    QString s = QStringLiteral("Policy (first matching stage rule decides; every matching note rule adds to the "
                               "prompt):\n");
    for (const auto &r : policyTable())
        s += QStringLiteral("  [%1] %2 -> %3\n      why: %4\n")
                 .arg(r.decidesStages ? QStringLiteral("stages") : QStringLiteral("note"), r.condition, r.nextStep,
                      r.why);
    return s;
}

QString describePlan(const StagePlan &plan)
{
    QStringList stages;
    if (plan.grid)
        stages << QStringLiteral("grid");
    if (plan.block)
        stages << QStringLiteral("block");
    if (plan.memory)
        stages << QStringLiteral("memory");
    const QString which = stages.isEmpty() ? QStringLiteral("none") : stages.join(QStringLiteral(", "));
    return QStringLiteral("stages: %1 (rule %2)").arg(which, plan.rule);
}

} // namespace kwb::detect
