// SPDX-License-Identifier: MIT
#pragma once

#include "evalresult.h"
#include "profile.h"
#include "verdict.h"

#include <QDateTime>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace kwb {

enum class CandidateKind {
    Baseline,
    Seed,
    Repair,
    AlgoOpt,
    StageGrid,
    StageBlock,
    StageMemory,
    ManualEdit,
    Reprompt,
};
QString toName(CandidateKind k);
std::optional<CandidateKind> candidateKindFromString(const QString &s);

enum class CandidateStatus {
    Pending, ///< created, code not evaluated yet
    Evaluating,
    Evaluated, ///< has an EvalResult (which may be a failure)
    Rejected, ///< a gate or a rule kept it out (reason in note)
};
QString toName(CandidateStatus s);
CandidateStatus candidateStatusFromString(const QString &s);

/// One version of the kernel in a run's tree.
struct Candidate {
    QString id; ///< unique in the run, e.g. "c0003"
    QString parentId; ///< empty for roots (seeds, baseline)
    CandidateKind kind = CandidateKind::Seed;
    QString label; ///< the seeds' call-type name, e.g. "seed1_repair2", "algorithm_optimized_seed1"
    QString codeFile; ///< path relative to the run directory, e.g. "kernels/c0003.py"
    CandidateStatus status = CandidateStatus::Pending;
    std::optional<EvalResult> eval;
    QList<Verdict> verdicts; ///< static detectors and integrity checks
    /// Nsight Compute profile taken for the algorithm analysis (once per candidate; survives resume).
    std::optional<KernelProfile> profile;
    QStringList exchangeIds; ///< LLM calls that produced this candidate
    QString note; ///< why it exists / why it was rejected
    QString overrideReason; ///< a person's written reason to accept an integrity violation
    QDateTime createdAt;

    /// The profile to show: the stored one, else the one an evaluation with profiling on carried.
    std::optional<KernelProfile> shownProfile() const;
    bool isCorrect() const { return eval && eval->correct(); }
    bool hasIntegrityViolation() const;
    /// May become "best": correct and either clean or overridden by a person.
    bool isEligibleForBest() const { return isCorrect() && (!hasIntegrityViolation() || !overrideReason.isEmpty()); }
};

} // namespace kwb
