// SPDX-License-Identifier: MIT
#pragma once

// The one class that uses Qt Charts (deprecated from Qt 6.10): nothing else includes it, so
// replacing the chart library later touches this folder only. The header names no Qt Charts type.

#include "model/run.h"

#include <QImage>
#include <QList>
#include <QPointF>
#include <QSize>
#include <QStringList>
#include <QWidget>

#include <cmath>
#include <limits>

class QChart;
class QChartView;

namespace kwb {

/// Latency of a run's candidates: a bar per evaluated candidate (median latency, creation order,
/// coloured by eligibility) with its spread (whiskers min–max, box median ± std), the PyTorch
/// eager and CUDA-graph baselines as horizontal lines, and the best-so-far score path. Clicking
/// a bar (or its whisker) emits candidateClicked(id). Exports to PNG and SVG.
class LatencyChart : public QWidget
{
    Q_OBJECT
public:
    /// What one bar shows (milliseconds).
    struct Bar {
        QString id;
        QString label; ///< axis text, e.g. "c0003 algo-opt"
        double medianMs = 0, minMs = 0, maxMs = 0, stdMs = 0;
        bool eligible = false; ///< may become best (correct, no unresolved integrity violation)
        bool correct = false;
    };
    static constexpr double kNoValue = std::numeric_limits<double>::quiet_NaN();

    explicit LatencyChart(QWidget *parent = nullptr);
    ~LatencyChart() override;

    /// Rebuilds the chart from the run (cheap enough to call on every candidate update).
    void setRun(const Run &run);
    /// The bars a run gives: candidates with a valid candidate latency, in creation order.
    static QList<Bar> barsOf(const Run &run);
    /// The baselines' medians over the run's evaluations (NaN when none was measured).
    static double eagerBaselineMs(const Run &run);
    static double graphBaselineMs(const Run &run);
    /// The best-so-far latency after each bar (NaN until the first eligible bar).
    static QList<double> bestSoFar(const QList<Bar> &bars);

    QStringList candidateIds() const;
    int barCount() const { return static_cast<int>(m_bars.size()); }
    /// Where bar `index` is drawn (its middle), in viewWidget() coordinates.
    QPointF barCenter(int index) const;
    /// The widget that draws the chart (clicks and screenshots go there).
    QWidget *viewWidget() const;

    /// Renders at `size` (independent of the widget's own size and visibility).
    QImage toImage(QSize size = QSize(1200, 600)) const;
    bool savePng(const QString &path, QSize size = QSize(1200, 600), QString *error = nullptr) const;
    bool saveSvg(const QString &path, QSize size = QSize(1200, 600), QString *error = nullptr) const;
    void setDark(bool dark);

signals:
    void candidateClicked(const QString &id);

private:
    void rebuild();
    template<typename Paint>
    void renderAt(QSize size, Paint paint) const;

    QChart *m_chart = nullptr;
    QChartView *m_view = nullptr;
    QList<Bar> m_bars;
    double m_eagerMs = kNoValue;
    double m_graphMs = kNoValue;
    QString m_title;
    bool m_dark = false;
};

} // namespace kwb
