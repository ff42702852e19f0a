// SPDX-License-Identifier: MIT
// String names of the model's enums (the names used in files and on the command line) and Run's lookups.
#include "candidate.h"
#include "evalresult.h"
#include "run.h"
#include "verdict.h"

#include <array>
#include <utility>

namespace kwb {

namespace {
template<typename E, std::size_t N>
QString lookupName(const std::array<std::pair<E, const char *>, N> &table, E e)
{
    for (const auto &[value, name] : table)
        if (value == e)
            return QString::fromLatin1(name);
    return {};
}

template<typename E, std::size_t N>
std::optional<E> lookupValue(const std::array<std::pair<E, const char *>, N> &table, const QString &s)
{
    for (const auto &[value, name] : table)
        if (s == QLatin1String(name))
            return value;
    return std::nullopt;
}

constexpr std::array<std::pair<Outcome, const char *>, 3> kOutcomes{
    {{Outcome::Yes, "yes"}, {Outcome::No, "no"}, {Outcome::CannotTell, "cannot_tell"}}};
constexpr std::array<std::pair<Severity, const char *>, 4> kSeverities{{{Severity::Info, "info"},
                                                                         {Severity::Warning, "warning"},
                                                                         {Severity::Error, "error"},
                                                                         {Severity::Critical, "critical"}}};
constexpr std::array<std::pair<EvalStatus, const char *>, 14> kStatuses{{
    {EvalStatus::Ok, "ok"},
    {EvalStatus::WrongResult, "wrong_result"},
    {EvalStatus::ShapeMismatch, "shape_mismatch"},
    {EvalStatus::SyntaxError, "syntax_error"},
    {EvalStatus::CompileError, "compile_error"},
    {EvalStatus::RuntimeError, "runtime_error"},
    {EvalStatus::CompileTimeout, "compile_timeout"},
    {EvalStatus::RunTimeout, "run_timeout"},
    {EvalStatus::Crash, "crash"},
    {EvalStatus::OutOfMemory, "out_of_memory"},
    {EvalStatus::NoGpu, "no_gpu"},
    {EvalStatus::Cancelled, "cancelled"},
    {EvalStatus::InternalError, "internal_error"},
    {EvalStatus::HarnessOutOfMemory, "harness_out_of_memory"},
}};
constexpr std::array<std::pair<CandidateKind, const char *>, 9> kKinds{{
    {CandidateKind::Baseline, "baseline"},
    {CandidateKind::Seed, "seed"},
    {CandidateKind::Repair, "repair"},
    {CandidateKind::AlgoOpt, "algo_opt"},
    {CandidateKind::StageGrid, "stage_grid"},
    {CandidateKind::StageBlock, "stage_block"},
    {CandidateKind::StageMemory, "stage_memory"},
    {CandidateKind::ManualEdit, "manual_edit"},
    {CandidateKind::Reprompt, "reprompt"},
}};
constexpr std::array<std::pair<CandidateStatus, const char *>, 4> kCandStatuses{{
    {CandidateStatus::Pending, "pending"},
    {CandidateStatus::Evaluating, "evaluating"},
    {CandidateStatus::Evaluated, "evaluated"},
    {CandidateStatus::Rejected, "rejected"},
}};
constexpr std::array<std::pair<RunState, const char *>, 5> kRunStates{{
    {RunState::Running, "running"},
    {RunState::Waiting, "waiting"},
    {RunState::Finished, "finished"},
    {RunState::Stopped, "stopped"},
    {RunState::Failed, "failed"},
}};
} // namespace

QString toName(Outcome o) { return lookupName(kOutcomes, o); }
Outcome outcomeFromString(const QString &s) { return lookupValue(kOutcomes, s).value_or(Outcome::CannotTell); }
QString toName(Severity s) { return lookupName(kSeverities, s); }
Severity severityFromString(const QString &s) { return lookupValue(kSeverities, s).value_or(Severity::Info); }
QString toName(EvalStatus s) { return lookupName(kStatuses, s); }
EvalStatus evalStatusFromString(const QString &s) { return lookupValue(kStatuses, s).value_or(EvalStatus::InternalError); }
QString toName(CandidateKind k) { return lookupName(kKinds, k); }
std::optional<CandidateKind> candidateKindFromString(const QString &s) { return lookupValue(kKinds, s); }
QString toName(CandidateStatus s) { return lookupName(kCandStatuses, s); }
CandidateStatus candidateStatusFromString(const QString &s)
{
    return lookupValue(kCandStatuses, s).value_or(CandidateStatus::Pending);
}
QString toName(RunState s) { return lookupName(kRunStates, s); }
RunState runStateFromString(const QString &s) { return lookupValue(kRunStates, s).value_or(RunState::Running); }

bool Candidate::hasIntegrityViolation() const
{
    for (const auto &v : verdicts)
        if (v.isIntegrityViolation())
            return true;
    if (eval)
        for (const auto &v : eval->runtimeChecks)
            if (v.isIntegrityViolation())
                return true;
    return false;
}

std::optional<KernelProfile> Candidate::shownProfile() const
{
    if (profile)
        return profile;
    // An evaluation asked for a profile (kwb eval --profile, the Python API): its metrics or its reason.
    if (eval && (!eval->profile.isEmpty() || (!eval->profileNote.isEmpty() && !eval->profileNote.endsWith(QLatin1String("not requested")))))
        return KernelProfile::fromEval(*eval);
    return std::nullopt;
}

const Candidate *Run::candidate(const QString &id) const
{
    for (const auto &c : candidates)
        if (c.id == id)
            return &c;
    return nullptr;
}

Candidate *Run::candidate(const QString &id)
{
    for (auto &c : candidates)
        if (c.id == id)
            return &c;
    return nullptr;
}

const LlmExchange *Run::exchange(const QString &id) const
{
    for (const auto &x : exchanges)
        if (x.id == id)
            return &x;
    return nullptr;
}

QList<const Candidate *> Run::children(const QString &parentId) const
{
    QList<const Candidate *> out;
    for (const auto &c : candidates)
        if (c.parentId == parentId)
            out.append(&c);
    return out;
}

const Candidate *Run::best() const
{
    const Candidate *best = nullptr;
    for (const auto &c : candidates) {
        if (c.kind == CandidateKind::Baseline || !c.isEligibleForBest() || !c.eval->candidate.isValid())
            continue;
        if (!best || c.eval->candidate.medianMs < best->eval->candidate.medianMs)
            best = &c;
    }
    return best;
}

} // namespace kwb
