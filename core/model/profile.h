// SPDX-License-Identifier: MIT
#pragma once

#include <QDateTime>
#include <QList>
#include <QMap>
#include <QString>

#include <limits>

namespace kwb {

struct EvalResult;

/// One Nsight Compute profile of a candidate, kept with the candidate in the run (its metrics are
/// the worker's keys: core/eval/worker/kwb_worker/profile.py). A profile that measured nothing
/// still counts as "profiled": its note says why ("not profiled: no GPU"), and the pipeline does
/// not ask again.
struct KernelProfile {
    QMap<QString, double> metrics; ///< empty when nothing was measured
    QString note; ///< "not profiled: ..." when nothing was measured; what was bounded otherwise
    double seconds = std::numeric_limits<double>::quiet_NaN(); ///< wall time the profile took
    QString device; ///< the device it ran on
    QDateTime at;

    bool measured() const { return !metrics.isEmpty(); }
    /// The metrics and note an evaluation made with `profile` on carries.
    static KernelProfile fromEval(const EvalResult &r);
};

enum class RooflineBound { Unknown, Memory, Compute };

/// Where a kernel sits under the device's roofs: achieved DRAM bandwidth and FLOP/s against the
/// peaks ncu read from the device during the profile (peak per cycle x clock). Pure arithmetic.
struct Roofline {
    double kernelSeconds = 0; ///< summed kernel time the rates are over
    double dramBytes = 0;
    double flops = 0; ///< add + mul + 2 x fma, of the precision below
    QString precision; ///< "FP32" or "FP64": whichever did more operations
    double bandwidth = 0; ///< bytes/s achieved
    double peakBandwidth = 0; ///< bytes/s
    double flopRate = 0; ///< FLOP/s achieved
    double peakFlopRate = 0; ///< FLOP/s of `precision`
    double intensity = 0; ///< FLOP per DRAM byte (infinite when no DRAM traffic)
    double ridge = 0; ///< the intensity where the two roofs meet
    RooflineBound bound = RooflineBound::Unknown;
    bool partial = false; ///< the launch bound was hit: the rates are over the profiled launches

    bool isValid() const { return bound != RooflineBound::Unknown; }
    double bandwidthFraction() const { return peakBandwidth > 0 ? bandwidth / peakBandwidth : 0.0; }
    double computeFraction() const { return peakFlopRate > 0 ? flopRate / peakFlopRate : 0.0; }
    /// The fraction of the roof that binds this kernel (bandwidth when memory-bound); NaN when unknown.
    double fractionOfLimit() const;
    /// "memory-bound at 71% of peak bandwidth"; empty when unknown.
    QString position() const;
    /// The position plus the figures behind it, one line.
    QString details() const;
    /// Short form for a table cell: "mem 71%", "FP32 24%".
    QString shortText() const;
};

/// The roofline of a profile's metrics; bound Unknown when the peaks or the time are missing.
Roofline rooflineOf(const QMap<QString, double> &metrics);

/// A number of a profile as a person reads it ("2.07 ms", "43.6 GB/s", "64").
QString formatProfileValue(const QString &key, double value);
/// A person's name for a metric key ("GPU time per forward").
QString profileLabel(const QString &key);

/// The "Profiler metrics (Nsight Compute)" text of a prompt: the roofline position first, then the
/// metrics, or the one-line reason when nothing was measured.
QString profilePromptText(const KernelProfile &p);

/// One line of a before/after comparison.
struct ProfileRow {
    enum class Change { None, Better, Worse, Changed }; ///< Changed: moved, neither better nor worse
    QString key; ///< metric key, or "roofline" / "profile_seconds"
    QString label;
    double before = std::numeric_limits<double>::quiet_NaN();
    double after = std::numeric_limits<double>::quiet_NaN();
    QString beforeText;
    QString afterText;
    double relative = std::numeric_limits<double>::quiet_NaN(); ///< after / before - 1
    Change change = Change::None;
};

/// Before/after rows over both profiles' metrics (and the roofline), the way Nsight Compute marks a
/// result against a baseline: a change of at least `threshold` (relative) is marked, as better or
/// worse where the metric has a direction (time, launches and spills down; occupancy, throughput
/// and the fraction of the roof up). Totals of a profile that hit the launch bound are lower bounds:
/// shown with "≥" and not judged.
QList<ProfileRow> compareProfiles(const KernelProfile &before, const KernelProfile &after, double threshold = 0.05);
/// "▲ 12%" style text of a row's change ("" when None).
QString changeText(const ProfileRow &row);

} // namespace kwb
