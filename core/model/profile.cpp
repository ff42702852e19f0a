// SPDX-License-Identifier: MIT
#include "profile.h"

#include "evalresult.h"

#include <QSet>
#include <QStringList>

#include <cmath>

namespace kwb {

namespace {

double metric(const QMap<QString, double> &m, const char *key)
{
    const double v = m.value(QString::fromLatin1(key), 0.0);
    return std::isfinite(v) ? v : 0.0;
}

QString percent(double fraction)
{
    const double p = 100.0 * fraction;
    return QStringLiteral("%1%").arg(p, 0, 'f', p < 10.0 ? 1 : 0);
}

/// 1234567 -> "1.23 M" + unit, in decimal steps (the way ncu prints rates).
QString scaled(double v, const QString &unit)
{
    static const char *const prefixes[] = {"", "K", "M", "G", "T", "P"};
    int i = 0;
    double x = std::fabs(v);
    while (x >= 1000.0 && i < 5) {
        x /= 1000.0;
        ++i;
    }
    const double shown = v < 0 ? -x : x;
    const int decimals = x >= 100 || i == 0 ? (x >= 100 || x == std::floor(x) ? 0 : 2) : (x >= 10 ? 1 : 2);
    return QStringLiteral("%1 %2%3").arg(shown, 0, 'f', decimals).arg(QLatin1String(prefixes[i]), unit).trimmed();
}

struct KeyInfo {
    const char *key;
    const char *label;
    int direction; ///< -1 lower is better, +1 higher is better, 0 neither
};

// The order people read them in; keys not listed follow, sorted.
const KeyInfo kKeys[] = {
    {"gpu_time_ms", "GPU time per forward", -1},
    {"kernel_launches", "kernel launches", -1},
    {"kernels_distinct", "distinct kernels", 0},
    {"max_kernel_ms", "longest kernel", 0}, // a persistent kernel is one long launch: no direction
    {"achieved_occupancy_pct", "achieved occupancy", +1},
    {"sm_throughput_pct", "SM throughput (% of peak)", +1},
    {"dram_throughput_pct", "DRAM throughput (% of peak)", 0},
    {"registers_per_thread", "registers per thread", 0},
    {"local_memory_bytes", "local memory (spills)", -1},
    {"dram_bytes", "DRAM bytes", 0},
    {"fp32_add", "FP32 add instructions", 0},
    {"fp32_mul", "FP32 mul instructions", 0},
    {"fp32_fma", "FP32 FMA instructions", 0},
    {"fp64_add", "FP64 add instructions", 0},
    {"fp64_mul", "FP64 mul instructions", 0},
    {"fp64_fma", "FP64 FMA instructions", 0},
    {"dram_peak_bytes_per_cycle", "DRAM peak per cycle (device)", 0},
    {"dram_cycles_per_second", "DRAM clock (device)", 0},
    {"fp32_peak_fma_per_cycle", "FP32 FMA peak per cycle (device)", 0},
    {"fp64_peak_fma_per_cycle", "FP64 FMA peak per cycle (device)", 0},
    {"sm_cycles_per_second", "SM clock during the profile", 0},
    {"launch_bound_reached", "launch bound reached", 0},
    {"profile_seconds", "time to profile", 0},
};

const KeyInfo *keyInfo(const QString &key)
{
    for (const auto &k : kKeys)
        if (key == QLatin1String(k.key))
            return &k;
    return nullptr;
}

// Shown in the prompt: what says something about the kernel (the raw counts and device constants
// are in the roofline line).
const char *const kPromptKeys[] = {"gpu_time_ms",           "kernel_launches",   "kernels_distinct",
                                   "max_kernel_ms",         "achieved_occupancy_pct", "sm_throughput_pct",
                                   "dram_throughput_pct",   "registers_per_thread",   "local_memory_bytes",
                                   "dram_bytes"};

// Totals over the profiled launches: when the launch bound was hit they cover only part of a forward.
bool isTotal(const QString &key)
{
    return key == QLatin1String("gpu_time_ms") || key == QLatin1String("kernel_launches") || key == QLatin1String("dram_bytes")
        || key == QLatin1String("local_memory_bytes") || key.startsWith(QLatin1String("fp32_")) || key.startsWith(QLatin1String("fp64_"));
}

QStringList orderedKeys(const QSet<QString> &present)
{
    QStringList out;
    for (const auto &k : kKeys)
        if (present.contains(QLatin1String(k.key)))
            out << QString::fromLatin1(k.key);
    QStringList rest;
    for (const QString &k : present)
        if (!keyInfo(k))
            rest << k;
    rest.sort();
    return out + rest;
}

} // namespace

KernelProfile KernelProfile::fromEval(const EvalResult &r)
{
    KernelProfile p;
    p.metrics = r.profile;
    p.note = r.profileNote;
    p.seconds = r.profile.value(QStringLiteral("profile_seconds"), std::numeric_limits<double>::quiet_NaN());
    p.device = r.device;
    return p;
}

double Roofline::fractionOfLimit() const
{
    switch (bound) {
    case RooflineBound::Memory:
        return bandwidthFraction();
    case RooflineBound::Compute:
        return computeFraction();
    case RooflineBound::Unknown:
        break;
    }
    return std::numeric_limits<double>::quiet_NaN();
}

QString Roofline::position() const
{
    switch (bound) {
    case RooflineBound::Memory:
        return QStringLiteral("memory-bound at %1 of peak bandwidth").arg(percent(bandwidthFraction()));
    case RooflineBound::Compute:
        return QStringLiteral("compute-bound at %1 of peak %2").arg(percent(computeFraction()), precision);
    case RooflineBound::Unknown:
        break;
    }
    return {};
}

QString Roofline::details() const
{
    if (!isValid())
        return {};
    const QString ai = std::isfinite(intensity) ? QString::number(intensity, 'f', intensity < 10 ? 2 : 1)
                                                : QStringLiteral("no DRAM traffic");
    QString s = QStringLiteral("%1: DRAM %2 of %3 (%4), %5 %6 of %7 (%8); %9 FLOP/byte, ridge %10")
                    .arg(position(), scaled(bandwidth, QStringLiteral("B/s")), scaled(peakBandwidth, QStringLiteral("B/s")),
                         percent(bandwidthFraction()), precision, scaled(flopRate, QStringLiteral("FLOP/s")),
                         scaled(peakFlopRate, QStringLiteral("FLOP/s")), percent(computeFraction()))
                    .arg(ai, QString::number(ridge, 'f', 1));
    if (partial)
        s += QStringLiteral(" (over the profiled launches only)");
    return s;
}

QString Roofline::shortText() const
{
    switch (bound) {
    case RooflineBound::Memory:
        return QStringLiteral("mem %1").arg(percent(bandwidthFraction()));
    case RooflineBound::Compute:
        return QStringLiteral("%1 %2").arg(precision, percent(computeFraction()));
    case RooflineBound::Unknown:
        break;
    }
    return {};
}

Roofline rooflineOf(const QMap<QString, double> &m)
{
    Roofline r;
    r.kernelSeconds = metric(m, "gpu_time_ms") / 1e3;
    r.dramBytes = metric(m, "dram_bytes");
    const double f32 = metric(m, "fp32_add") + metric(m, "fp32_mul") + 2.0 * metric(m, "fp32_fma");
    const double f64 = metric(m, "fp64_add") + metric(m, "fp64_mul") + 2.0 * metric(m, "fp64_fma");
    const bool useFp64 = f64 > f32;
    r.precision = useFp64 ? QStringLiteral("FP64") : QStringLiteral("FP32");
    r.flops = useFp64 ? f64 : f32;
    r.peakBandwidth = metric(m, "dram_peak_bytes_per_cycle") * metric(m, "dram_cycles_per_second");
    r.peakFlopRate = 2.0 * metric(m, useFp64 ? "fp64_peak_fma_per_cycle" : "fp32_peak_fma_per_cycle")
                     * metric(m, "sm_cycles_per_second");
    r.partial = metric(m, "launch_bound_reached") > 0;
    if (r.kernelSeconds <= 0 || r.peakBandwidth <= 0 || r.peakFlopRate <= 0 || (r.dramBytes <= 0 && r.flops <= 0))
        return r;
    r.bandwidth = r.dramBytes / r.kernelSeconds;
    r.flopRate = r.flops / r.kernelSeconds;
    r.intensity = r.dramBytes > 0 ? r.flops / r.dramBytes : std::numeric_limits<double>::infinity();
    r.ridge = r.peakFlopRate / r.peakBandwidth;
    r.bound = r.intensity < r.ridge ? RooflineBound::Memory : RooflineBound::Compute;
    return r;
}

QString profileLabel(const QString &key)
{
    if (const KeyInfo *k = keyInfo(key))
        return QString::fromLatin1(k->label);
    return key;
}

QString formatProfileValue(const QString &key, double v)
{
    if (!std::isfinite(v))
        return QStringLiteral("n/a");
    if (key.endsWith(QLatin1String("_ms")))
        return QStringLiteral("%1 ms").arg(v, 0, 'f', v < 0.1 ? 4 : 3);
    if (key.endsWith(QLatin1String("_pct")))
        return QStringLiteral("%1%").arg(v, 0, 'f', 1);
    if (key.endsWith(QLatin1String("_bytes")))
        return scaled(v, QStringLiteral("B"));
    if (key.endsWith(QLatin1String("_per_second")))
        return scaled(v, QStringLiteral("Hz"));
    if (key.endsWith(QLatin1String("_per_cycle")))
        return QStringLiteral("%1 /cycle").arg(v, 0, 'f', 0);
    if (key == QLatin1String("profile_seconds"))
        return QStringLiteral("%1 s").arg(v, 0, 'f', 1);
    if (key == QLatin1String("launch_bound_reached"))
        return v > 0 ? QStringLiteral("yes") : QStringLiteral("no");
    if (key.startsWith(QLatin1String("fp32_")) || key.startsWith(QLatin1String("fp64_")))
        return scaled(v, QString());
    if (v == std::floor(v) && std::fabs(v) < 1e9)
        return QString::number(qint64(v));
    return QString::number(v, 'g', 4);
}

QString profilePromptText(const KernelProfile &p)
{
    if (!p.measured())
        return p.note.isEmpty() ? QStringLiteral("not profiled") : p.note;
    QStringList head;
    if (!p.device.isEmpty())
        head << QStringLiteral("on %1").arg(p.device);
    if (std::isfinite(p.seconds))
        head << QStringLiteral("profiled in %1 s").arg(p.seconds, 0, 'f', 1);
    if (!p.note.isEmpty())
        head << p.note;
    QStringList lines;
    lines << QStringLiteral("Nsight Compute, one forward call%1:")
                 .arg(head.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(head.join(QStringLiteral("; "))));
    const Roofline r = rooflineOf(p.metrics);
    lines << QStringLiteral("- roofline: %1")
                 .arg(r.isValid() ? r.details() : QStringLiteral("unknown (the profile has no DRAM/FLOP counts or device peaks)"));
    for (const char *k : kPromptKeys) {
        const QString key = QString::fromLatin1(k);
        if (p.metrics.contains(key))
            lines << QStringLiteral("- %1 (%2): %3").arg(profileLabel(key), key, formatProfileValue(key, p.metrics.value(key)));
    }
    return lines.join(QLatin1Char('\n'));
}

QList<ProfileRow> compareProfiles(const KernelProfile &before, const KernelProfile &after, double threshold)
{
    auto mark = [threshold](ProfileRow &row, int direction) {
        if (!std::isfinite(row.before) || !std::isfinite(row.after))
            return;
        if (row.before == row.after) {
            row.relative = 0;
            return;
        }
        row.relative = row.before != 0 ? row.after / row.before - 1.0 : std::numeric_limits<double>::infinity();
        if (std::fabs(row.relative) < threshold)
            return;
        const bool up = row.after > row.before;
        row.change = direction == 0 ? ProfileRow::Change::Changed
                                    : ((up == (direction > 0)) ? ProfileRow::Change::Better : ProfileRow::Change::Worse);
    };
    QList<ProfileRow> rows;
    const Roofline rb = rooflineOf(before.metrics);
    const Roofline ra = rooflineOf(after.metrics);
    if (rb.isValid() || ra.isValid()) {
        ProfileRow pos;
        pos.key = QStringLiteral("roofline");
        pos.label = QStringLiteral("roofline position");
        pos.before = rb.fractionOfLimit();
        pos.after = ra.fractionOfLimit();
        pos.beforeText = rb.isValid() ? rb.position() : QStringLiteral("—");
        pos.afterText = ra.isValid() ? ra.position() : QStringLiteral("—");
        if (rb.bound == ra.bound)
            mark(pos, +1);
        else if (rb.isValid() && ra.isValid())
            pos.change = ProfileRow::Change::Changed; // another roof: the fractions do not compare
        rows << pos;
        for (const bool bw : {true, false}) {
            ProfileRow row;
            row.key = bw ? QStringLiteral("achieved_bandwidth") : QStringLiteral("achieved_flop_rate");
            row.label = bw ? QStringLiteral("achieved DRAM bandwidth") : QStringLiteral("achieved FLOP/s");
            const QString unit = bw ? QStringLiteral("B/s") : QStringLiteral("FLOP/s");
            if (rb.isValid()) {
                row.before = bw ? rb.bandwidth : rb.flopRate;
                row.beforeText = scaled(row.before, unit);
            }
            if (ra.isValid()) {
                row.after = bw ? ra.bandwidth : ra.flopRate;
                row.afterText = scaled(row.after, unit);
            }
            mark(row, 0);
            rows << row;
        }
    }
    QSet<QString> keys;
    for (auto it = before.metrics.cbegin(); it != before.metrics.cend(); ++it)
        keys.insert(it.key());
    for (auto it = after.metrics.cbegin(); it != after.metrics.cend(); ++it)
        keys.insert(it.key());
    for (const QString &key : orderedKeys(keys)) {
        ProfileRow row;
        row.key = key;
        row.label = profileLabel(key);
        row.before = before.metrics.value(key, std::numeric_limits<double>::quiet_NaN());
        row.after = after.metrics.value(key, std::numeric_limits<double>::quiet_NaN());
        row.beforeText = before.metrics.contains(key) ? formatProfileValue(key, row.before) : QStringLiteral("—");
        row.afterText = after.metrics.contains(key) ? formatProfileValue(key, row.after) : QStringLiteral("—");
        const KeyInfo *info = keyInfo(key);
        if (isTotal(key) && (rb.partial || ra.partial) && !key.contains(QLatin1String("_peak_"))) {
            // A total over the first launches only is a lower bound: say so, and judge nothing.
            if (rb.partial && before.metrics.contains(key))
                row.beforeText.prepend(QStringLiteral("≥ "));
            if (ra.partial && after.metrics.contains(key))
                row.afterText.prepend(QStringLiteral("≥ "));
        } else {
            mark(row, info ? info->direction : 0);
        }
        rows << row;
    }
    return rows;
}

QString changeText(const ProfileRow &row)
{
    if (row.change == ProfileRow::Change::None)
        return {};
    if (!std::isfinite(row.relative))
        return row.key == QLatin1String("roofline") ? QStringLiteral("other roof") : QStringLiteral("from 0");
    const double p = 100.0 * row.relative;
    return QStringLiteral("%1%2%").arg(p > 0 ? QStringLiteral("+") : QStringLiteral("−")).arg(std::fabs(p), 0, 'f', std::fabs(p) < 10 ? 1 : 0);
}

} // namespace kwb
