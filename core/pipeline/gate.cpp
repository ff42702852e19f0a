// SPDX-License-Identifier: MIT
#include "pipeline/gate.h"

#include <array>
#include <utility>

namespace kwb::pipeline {

namespace {
template<typename E, std::size_t N>
QString nameOf(const std::array<std::pair<E, const char *>, N> &table, E e)
{
    for (const auto &[value, name] : table)
        if (value == e)
            return QString::fromLatin1(name);
    return {};
}

template<typename E, std::size_t N>
std::optional<E> valueOf(const std::array<std::pair<E, const char *>, N> &table, const QString &s)
{
    for (const auto &[value, name] : table)
        if (s.compare(QLatin1String(name), Qt::CaseInsensitive) == 0)
            return value;
    return std::nullopt;
}

constexpr std::array<std::pair<GatePoint, const char *>, 3> kPoints{{
    {GatePoint::BeforeLlm, "before_llm"},
    {GatePoint::AfterGeneration, "after_generation"},
    {GatePoint::AfterEvaluation, "after_eval"},
}};
constexpr std::array<std::pair<GatePolicy, const char *>, 3> kPolicies{{
    {GatePolicy::All, "all"},
    {GatePolicy::Failures, "failures"},
    {GatePolicy::None, "none"},
}};
constexpr std::array<std::pair<GateAction, const char *>, 8> kActions{{
    {GateAction::Approve, "approve"},
    {GateAction::EditPrompt, "edit_prompt"},
    {GateAction::EditCode, "edit_code"},
    {GateAction::Reprompt, "reprompt"},
    {GateAction::Skip, "skip"},
    {GateAction::UseAsBase, "use_as_base"},
    {GateAction::Stop, "stop"},
    {GateAction::Override, "override"},
}};
} // namespace

QString toName(GatePoint p) { return nameOf(kPoints, p); }
std::optional<GatePoint> gatePointFromString(const QString &s) { return valueOf(kPoints, s); }
QString toName(GatePolicy p) { return nameOf(kPolicies, p); }
std::optional<GatePolicy> gatePolicyFromString(const QString &s)
{
    if (s.compare(QLatin1String("auto"), Qt::CaseInsensitive) == 0)
        return GatePolicy::None;
    return valueOf(kPolicies, s);
}
QString toName(GateAction a) { return nameOf(kActions, a); }
std::optional<GateAction> gateActionFromString(const QString &s) { return valueOf(kActions, s); }

bool gateOpens(GatePolicy policy, const QSet<GatePoint> &points, GatePoint point, bool failed)
{
    switch (policy) {
    case GatePolicy::None:
        return false;
    case GatePolicy::Failures:
        // A failure shows itself after evaluation (or when a call fails, reported at BeforeLlm's
        // retry point); the enabled points do not restrict this policy, so "failures" always means it.
        return failed;
    case GatePolicy::All:
        return points.contains(point) || failed;
    }
    return false;
}

QList<GateAction> allowedActions(GatePoint point)
{
    switch (point) {
    case GatePoint::BeforeLlm:
        return {GateAction::Approve, GateAction::EditPrompt, GateAction::Skip, GateAction::UseAsBase, GateAction::Stop};
    case GatePoint::AfterGeneration:
        return {GateAction::Approve, GateAction::EditCode, GateAction::Reprompt, GateAction::Skip, GateAction::Stop};
    case GatePoint::AfterEvaluation:
        return {GateAction::Approve, GateAction::EditCode, GateAction::Reprompt, GateAction::Skip,
                GateAction::UseAsBase, GateAction::Override, GateAction::Stop};
    }
    return {};
}

} // namespace kwb::pipeline
