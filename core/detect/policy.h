// SPDX-License-Identifier: MIT
#pragma once

#include "model/verdict.h"

#include <QList>
#include <QString>
#include <QStringList>

namespace kwb::detect {

/// Which of the three tuning stages (grid, block, memory) run next, and why.
struct StagePlan {
    bool grid = true, block = true, memory = true;
    QString rule; ///< id of the policy row that decided the stages
    QString explanation; ///< the "why" of every row that applied, one sentence each
    QStringList promptNotes; ///< text the next prompt(s) must include (verdict facts, requirements)
    bool operator==(const StagePlan &) const = default;

    bool runsNothing() const { return !grid && !block && !memory; }
};

/// One row of the policy table: when `condition` holds, `nextStep`, because `why`.
struct PolicyRow {
    QString rule;
    QString condition;
    QString nextStep;
    QString why;
    bool decidesStages = true; ///< false for rows that only add prompt notes
};

/// The policy, in the order it is read: the first deciding row whose condition holds sets the
/// stages; every note row whose condition holds adds its notes.
const QList<PolicyRow> &policyTable();

/// Applies the table to a candidate's verdicts.
StagePlan planStages(const QList<Verdict> &verdicts);

/// The table as plain text (shown at the gate and by `kwb detect`).
QString describePolicy();

/// The plan in one line: "stages: grid only (rule persistent_batch_grid)".
QString describePlan(const StagePlan &plan);

} // namespace kwb::detect
