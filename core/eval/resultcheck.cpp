// SPDX-License-Identifier: MIT
#include "eval/resultcheck.h"

#include "model/evalresult.h"

#include <QJsonArray>
#include <QSet>

#include <cmath>

namespace kwb {

namespace {

const QSet<QString> &knownStatuses()
{
    static const QSet<QString> names = [] {
        QSet<QString> s;
        for (int i = int(EvalStatus::Ok); i <= int(EvalStatus::HarnessOutOfMemory); ++i)
            s.insert(toName(EvalStatus(i)));
        return s;
    }();
    return names;
}

/// How many timed samples a figure of an "ok" result may count when `repeat` rounds were asked for: all of them, or
/// on a busy CPU as few as a third (the judge then counts, for every kind alike, as many frames that no other
/// process delayed as the kind with the fewest has: kwb_worker/judge.py quiet_count). Fewer is a result that
/// measured too little to stand.
int fewestSamples(int repeat)
{
    return (repeat + 2) / 3;
}

/// The rounds a result may count: [least, most] (least -1: any). `repeat` as asked, or 0: the judge's own count,
/// AutoRoundsMin to AutoRoundsMax rounds.
struct Rounds {
    int least = -1;
    int most = -1;
    QString asked;
};

Rounds roundsFor(int repeat)
{
    if (repeat > 0)
        return {fewestSamples(repeat), repeat, QString::number(repeat)};
    return {fewestSamples(AutoRoundsMin), AutoRoundsMax,
            QStringLiteral("%1-%2 (the judge's count)").arg(AutoRoundsMin).arg(AutoRoundsMax)};
}

/// A LatencyStats object: empty (samples 0) or `samples` positive, finite, ordered figures; where `want` is
/// given, between its least and most of them.
QString checkStats(const QString &name, const QJsonValue &v, const Rounds &want)
{
    if (v.isUndefined() || v.isNull())
        return want.least > 0 ? name + QStringLiteral(" timings missing") : QString();
    if (!v.isObject())
        return name + QStringLiteral(" timings are not an object");
    const QJsonObject o = v.toObject();
    const int n = o.value(QStringLiteral("samples")).toInt(-1);
    if (n < 0)
        return name + QStringLiteral(" samples missing");
    if (want.least >= 0 && (n > want.most || n < want.least))
        return QStringLiteral("%1 has %2 timed samples, %3 were asked for (at least %4 must count)")
            .arg(name)
            .arg(n)
            .arg(want.asked)
            .arg(want.least);
    if (n == 0)
        return {};
    const double med = o.value(QStringLiteral("median_ms")).toDouble(-1);
    const double lo = o.value(QStringLiteral("min_ms")).toDouble(-1);
    const double hi = o.value(QStringLiteral("max_ms")).toDouble(-1);
    if (!(std::isfinite(med) && std::isfinite(lo) && std::isfinite(hi)) || lo <= 0 || lo > med || med > hi)
        return QStringLiteral("%1 timings are impossible (min %2, median %3, max %4 ms)").arg(name).arg(lo).arg(med).arg(hi);
    return {};
}

QString checkVerdicts(const QJsonValue &v)
{
    if (v.isUndefined())
        return {};
    if (!v.isArray())
        return QStringLiteral("runtime_checks is not a list");
    static const QSet<QString> outcomes{QStringLiteral("yes"), QStringLiteral("no"), QStringLiteral("cannot_tell")};
    static const QSet<QString> severities{QStringLiteral("info"), QStringLiteral("warning"), QStringLiteral("error"),
                                          QStringLiteral("critical")};
    for (const QJsonValue &e : v.toArray()) {
        const QJsonObject o = e.toObject();
        if (!o.value(QStringLiteral("detector")).toString().startsWith(QLatin1String("integrity."))
            || !outcomes.contains(o.value(QStringLiteral("outcome")).toString())
            || !severities.contains(o.value(QStringLiteral("severity")).toString()))
            return QStringLiteral("a runtime check of unknown shape");
    }
    return {};
}

} // namespace

QString refuseResult(const QJsonObject &r, const EvalRequest &req, bool baselineOnly)
{
    const QString status = r.value(QStringLiteral("status")).toString();
    if (!knownStatuses().contains(status))
        return QStringLiteral("unknown status '%1'").arg(status.left(40));
    if (!r.value(QStringLiteral("reason")).isString())
        return QStringLiteral("no reason");
    if (QString why = checkVerdicts(r.value(QStringLiteral("runtime_checks"))); !why.isEmpty())
        return why;
    const bool ok = status == QLatin1String("ok");
    const bool baselines = baselineOnly || req.baselines;
    // An "ok" is a claim about every trial and every timed round asked for; nothing less is accepted.
    const Rounds rounds = ok ? roundsFor(req.repeat) : Rounds{};
    if (QString why = checkStats(QStringLiteral("eager"), r.value(QStringLiteral("eager")), ok && baselines ? rounds : Rounds{});
        !why.isEmpty())
        return why;
    if (QString why = checkStats(QStringLiteral("graph"), r.value(QStringLiteral("graph")), Rounds{}); !why.isEmpty())
        return why;
    if (baselineOnly)
        return {};
    if (QString why = checkStats(QStringLiteral("candidate"), r.value(QStringLiteral("candidate")), rounds);
        !why.isEmpty())
        return why;
    if (!ok)
        return {};
    // A ratio of two figures is only fair over as many frames of each.
    const int candidateSamples = r.value(QStringLiteral("candidate")).toObject().value(QStringLiteral("samples")).toInt();
    const int eagerSamples = r.value(QStringLiteral("eager")).toObject().value(QStringLiteral("samples")).toInt();
    if (baselines && eagerSamples != candidateSamples)
        return QStringLiteral("the candidate counts %1 timed samples, eager %2").arg(candidateSamples).arg(eagerSamples);
    if (r.value(QStringLiteral("trials")).toInt(-1) != req.trials)
        return QStringLiteral("'ok' after %1 correctness trials, %2 were asked for")
            .arg(r.value(QStringLiteral("trials")).toInt(-1))
            .arg(req.trials);
    if (r.value(QStringLiteral("failing_trial")).toInt(-1) != -1)
        return QStringLiteral("'ok' with a failing trial");
    const double err = r.value(QStringLiteral("max_abs_err")).toDouble(std::nan(""));
    if (!std::isfinite(err) || err < 0)
        return QStringLiteral("'ok' without a finite error against the reference");
    return {};
}

} // namespace kwb
