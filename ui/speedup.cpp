// SPDX-License-Identifier: MIT
#include "speedup.h"

#include <QCoreApplication>

#include <cmath>

namespace kwb {

namespace {
double relativeStd(const LatencyStats &s)
{
    return s.isValid() && s.medianMs > 0 && std::isfinite(s.stdMs) ? s.stdMs / s.medianMs : std::nan("");
}

QString tr(const char *text)
{
    return QCoreApplication::translate("kwb::Speedup", text);
}
} // namespace

bool Speedup::isValid() const
{
    return std::isfinite(value);
}

Speedup Speedup::of(const LatencyStats &base, const LatencyStats &cand)
{
    Speedup s;
    if (!base.isValid() || !cand.isValid() || cand.medianMs <= 0)
        return s;
    s.value = base.medianMs / cand.medianMs;
    const double a = relativeStd(base);
    const double b = relativeStd(cand);
    if (std::isfinite(a) && std::isfinite(b)) {
        s.relativeSpread = std::sqrt(a * a + b * b);
        s.withinNoise = std::abs(s.value - 1.0) <= s.relativeSpread;
    }
    return s;
}

QString Speedup::shortText() const
{
    if (!isValid())
        return {};
    const QString number = QString::number(value, 'f', value < 10 ? 2 : 1);
    return withinNoise ? QStringLiteral("≈%1×").arg(number) : QStringLiteral("%1×").arg(number);
}

QString Speedup::text() const
{
    return withinNoise ? tr("%1 (within noise)").arg(shortText()) : shortText();
}

QString Speedup::explanation(const QString &baselineName, const LatencyStats &base, const LatencyStats &cand) const
{
    if (!isValid())
        return {};
    auto ms = [](const LatencyStats &s) {
        return std::isfinite(s.stdMs) ? QStringLiteral("%1 ± %2 ms").arg(s.medianMs, 0, 'g', 4).arg(s.stdMs, 0, 'g', 2)
                                      : QStringLiteral("%1 ms").arg(s.medianMs, 0, 'g', 4);
    };
    QString out = tr("%1 against %2: %3 / candidate %4")
                      .arg(QString::number(value, 'f', value < 10 ? 3 : 2) + QStringLiteral("×"), baselineName, ms(base), ms(cand));
    if (std::isfinite(relativeSpread))
        out += withinNoise ? tr("\nWithin noise: the measured spread is ±%1 %, so this cannot be told from 1×.")
                                 .arg(relativeSpread * 100, 0, 'f', 1)
                           : tr("\nMeasured spread ±%1 %.").arg(relativeSpread * 100, 0, 'f', 1);
    return out;
}

} // namespace kwb
