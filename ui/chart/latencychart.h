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
class QCheckBox;
class QGraphicsItem;

namespace kwb {

/// Latency of a run's candidates: a bar per evaluated candidate (median latency, creation order,
/// coloured by eligibility) with its spread (whiskers min–max, box median ± std), each bar labelled
/// with its median and its speedup (against the CUDA graph, else eager), the PyTorch eager and
/// CUDA-graph baselines as labelled horizontal lines, and the best-so-far score path. The latency
/// axis turns logarithmic when the values span more than 10x (a 5 ms kernel beside 120 ms seeds
/// would be an invisible sliver); a check box overrides that. Clicking a bar (or its whisker)
/// emits candidateClicked(id). Exports to PNG and SVG.
class LatencyChart : public QWidget
{
    Q_OBJECT
public:
    /// What one bar shows (milliseconds).
    struct Bar {
        QString id;
        QString label; ///< axis text (rich text, two lines), e.g. "c0003<br>algo_opt"
        double medianMs = 0, minMs = 0, maxMs = 0, stdMs = 0;
        bool eligible = false; ///< may become best (correct, no unresolved integrity violation)
        bool correct = false;
        QString speedup; ///< e.g. "3.53× graph", "≈1.01× graph", "21.4× eager"; the status when not correct
    };
    /// Auto: logarithmic when the values span more than kLogRatio.
    enum class Scale { Auto, Linear, Log };
    static constexpr double kLogRatio = 10.0;
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
    /// The scale asked for (the check box sets Linear or Log) and the one in use.
    void setScale(Scale scale);
    Scale scale() const { return m_scale; }
    bool isLogScale() const { return m_log; }
    /// Whether values from `lo` to `hi` call for a log axis under Auto.
    static bool wantsLogScale(double lo, double hi) { return lo > 0 && hi / lo > kLogRatio; }
    /// The label text over each bar (median and speedup), in bar order; empty for a bar whose
    /// label does not fit (its tooltip still has it).
    QStringList barLabels() const;
    /// The axis title in use (tests check it is not cut).
    QString axisTitle() const;
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

protected:
    void resizeEvent(QResizeEvent *event) override;

private:
    void rebuild();
    /// Puts the bar and baseline labels where the bars and lines are drawn now.
    void placeLabels();
    template<typename Paint>
    void renderAt(QSize size, Paint paint) const;

    QChart *m_chart = nullptr;
    QChartView *m_view = nullptr;
    QList<Bar> m_bars;
    double m_eagerMs = kNoValue;
    double m_graphMs = kNoValue;
    QString m_title;
    bool m_dark = false;
    Scale m_scale = Scale::Auto;
    bool m_log = false;
    double m_axisMin = 0;
    QCheckBox *m_logBox = nullptr;
    QList<QGraphicsItem *> m_barLabels; ///< one per bar (a text with a backing box)
    QList<QGraphicsItem *> m_lineLabels; ///< eager and graph baselines
    QStringList m_labelTexts;
};

} // namespace kwb
