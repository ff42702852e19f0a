// SPDX-License-Identifier: MIT
#pragma once

#include "model/evalresult.h"

#include <QString>

#include <limits>

namespace kwb {

/// A speedup (baseline median / candidate median) with the noise of both measurements: a speedup
/// whose distance from 1 is inside the measured spread cannot be told from "no change" and is shown
/// as such ("≈1.02× (within noise)"). The spread is the relative standard deviations of the two
/// series added in quadrature (std / median of each); without a standard deviation there is no
/// noise judgement.
struct Speedup {
    double value = std::numeric_limits<double>::quiet_NaN();
    double relativeSpread = std::numeric_limits<double>::quiet_NaN(); ///< e.g. 0.023 for ±2.3 %
    bool withinNoise = false;

    bool isValid() const;
    /// "3.53×", "≈1.02× (within noise)", or empty when there is no value.
    QString text() const;
    /// The same, compact: "≈1.02×" within noise.
    QString shortText() const;
    /// What the figure is made of, for a tooltip: both medians ± std and the spread.
    QString explanation(const QString &baselineName, const LatencyStats &base, const LatencyStats &cand) const;

    static Speedup of(const LatencyStats &base, const LatencyStats &cand);
    static Speedup vsEager(const EvalResult &r) { return of(r.eager, r.candidate); }
    static Speedup vsGraph(const EvalResult &r) { return of(r.graph, r.candidate); }
};

} // namespace kwb
