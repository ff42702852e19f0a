// SPDX-License-Identifier: MIT
#include "chart/latencychart.h"

#include <QtCharts/QBarCategoryAxis>
#include <QtCharts/QBarLegendMarker>
#include <QtCharts/QBarSet>
#include <QtCharts/QBoxPlotSeries>
#include <QtCharts/QBoxSet>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QLegendMarker>
#include <QtCharts/QLineSeries>
#include <QtCharts/QStackedBarSeries>
#include <QtCharts/QValueAxis>

#include <QFile>
#include <QGraphicsLayout>
#include <QPainter>
#include <QSvgGenerator>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>

namespace kwb {

namespace {

double medianOf(QList<double> v)
{
    v.removeIf([](double d) { return !std::isfinite(d); });
    if (v.isEmpty())
        return LatencyChart::kNoValue;
    std::sort(v.begin(), v.end());
    const qsizetype n = v.size();
    return n % 2 ? v.at(n / 2) : (v.at(n / 2 - 1) + v.at(n / 2)) / 2;
}

double finiteOr(double v, double fallback)
{
    return std::isfinite(v) ? v : fallback;
}

QColor eligibleColour() { return QColor(0x3b, 0x82, 0xc4); }
QColor violationColour() { return QColor(0xd9, 0x7a, 0x1e); }
QColor wrongColour() { return QColor(0xc0, 0x3b, 0x3b); }

} // namespace

LatencyChart::LatencyChart(QWidget *parent)
    : QWidget(parent)
    , m_chart(new QChart)
    , m_view(new QChartView(m_chart, this))
{
    m_view->setObjectName(QStringLiteral("latencyChartView"));
    m_view->setRenderHint(QPainter::Antialiasing);
    m_chart->setAnimationOptions(QChart::NoAnimation); // live updates must not replay animations
    m_chart->legend()->setAlignment(Qt::AlignBottom);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_view);
    rebuild();
}

LatencyChart::~LatencyChart() = default; // the view owns the chart

QList<LatencyChart::Bar> LatencyChart::barsOf(const Run &run)
{
    QList<Bar> bars;
    for (const Candidate &c : run.candidates) {
        if (!c.eval || !c.eval->candidate.isValid())
            continue;
        const LatencyStats &s = c.eval->candidate;
        Bar b;
        b.id = c.id;
        b.label = QStringLiteral("%1 %2").arg(c.id, toName(c.kind));
        b.medianMs = s.medianMs;
        b.minMs = finiteOr(s.minMs, s.medianMs);
        b.maxMs = finiteOr(s.maxMs, s.medianMs);
        b.stdMs = finiteOr(s.stdMs, 0.0);
        b.eligible = c.isEligibleForBest();
        b.correct = c.isCorrect();
        bars.append(b);
    }
    return bars;
}

double LatencyChart::eagerBaselineMs(const Run &run)
{
    QList<double> v;
    for (const Candidate &c : run.candidates)
        if (c.eval && c.eval->eager.isValid())
            v.append(c.eval->eager.medianMs);
    return medianOf(v);
}

double LatencyChart::graphBaselineMs(const Run &run)
{
    QList<double> v;
    for (const Candidate &c : run.candidates)
        if (c.eval && c.eval->graph.isValid())
            v.append(c.eval->graph.medianMs);
    return medianOf(v);
}

QList<double> LatencyChart::bestSoFar(const QList<Bar> &bars)
{
    QList<double> out;
    double best = kNoValue;
    for (const Bar &b : bars) {
        if (b.eligible && (!std::isfinite(best) || b.medianMs < best))
            best = b.medianMs;
        out.append(best);
    }
    return out;
}

void LatencyChart::setRun(const Run &run)
{
    m_bars = barsOf(run);
    m_eagerMs = eagerBaselineMs(run);
    m_graphMs = graphBaselineMs(run);
    m_title = run.info.taskName.isEmpty() ? tr("Latency per candidate")
                                          : tr("Latency per candidate: %1").arg(run.info.taskName);
    rebuild();
}

QStringList LatencyChart::candidateIds() const
{
    QStringList ids;
    for (const Bar &b : m_bars)
        ids.append(b.id);
    return ids;
}

void LatencyChart::rebuild()
{
    m_chart->removeAllSeries();
    for (QAbstractAxis *a : m_chart->axes()) {
        m_chart->removeAxis(a);
        delete a;
    }
    m_chart->setTitle(m_title.isEmpty() ? tr("Latency per candidate") : m_title);
    m_chart->setTheme(m_dark ? QChart::ChartThemeDark : QChart::ChartThemeLight);

    const int n = static_cast<int>(m_bars.size());
    auto *categories = new QBarCategoryAxis;
    auto *lineX = new QValueAxis; // the lines' x: category i is drawn at x = i
    lineX->setRange(-0.5, std::max(0, n - 1) + 0.5);
    lineX->setVisible(false);
    auto *y = new QValueAxis;
    y->setTitleText(tr("ms (median; whiskers min–max, box ± std)"));
    y->setLabelFormat(QStringLiteral("%.3g"));
    m_chart->addAxis(categories, Qt::AlignBottom);
    m_chart->addAxis(lineX, Qt::AlignTop);
    m_chart->addAxis(y, Qt::AlignLeft);

    // One stacked series with one set per colour: each candidate has its value in exactly one set,
    // which colours single bars (Qt 6.4 has no per-bar colour).
    auto *bars = new QStackedBarSeries;
    auto *eligible = new QBarSet(tr("eligible"));
    auto *violation = new QBarSet(tr("correct, integrity violation"));
    auto *wrong = new QBarSet(tr("not correct"));
    eligible->setColor(eligibleColour());
    violation->setColor(violationColour());
    wrong->setColor(wrongColour());
    auto *spread = new QBoxPlotSeries;
    spread->setName(tr("spread"));
    spread->setBoxWidth(0.2);
    spread->setBrush(QColor(255, 255, 255, 90));
    spread->setPen(QPen(m_dark ? QColor(0xe0, 0xe0, 0xe0) : QColor(0x30, 0x30, 0x30), 1.2));
    double top = 0;
    QStringList labels;
    for (const Bar &b : m_bars) {
        labels.append(b.label);
        eligible->append(b.eligible ? b.medianMs : 0.0);
        violation->append(!b.eligible && b.correct ? b.medianMs : 0.0);
        wrong->append(!b.correct ? b.medianMs : 0.0);
        const double lo = std::min(b.minMs, b.medianMs);
        const double hi = std::max(b.maxMs, b.medianMs);
        auto *box = new QBoxSet(lo, std::max(lo, b.medianMs - b.stdMs), b.medianMs, std::min(hi, b.medianMs + b.stdMs),
                                hi, b.id);
        spread->append(box);
        top = std::max(top, hi);
    }
    bars->append(eligible);
    bars->append(violation);
    bars->append(wrong);
    bars->setBarWidth(0.6);
    categories->append(labels.isEmpty() ? QStringList{QString()} : labels);
    categories->setLabelsAngle(labels.size() > 8 ? -60 : 0);
    m_chart->addSeries(bars);
    bars->attachAxis(categories);
    bars->attachAxis(y);
    m_chart->addSeries(spread);
    spread->attachAxis(categories);
    spread->attachAxis(y);
    connect(bars, &QAbstractBarSeries::clicked, this, [this](int index, QBarSet *) {
        if (index >= 0 && index < m_bars.size())
            emit candidateClicked(m_bars.at(index).id);
    });
    connect(spread, &QBoxPlotSeries::clicked, this, [this](QBoxSet *set) { emit candidateClicked(set->label()); });
    connect(bars, &QAbstractBarSeries::hovered, this, [this](bool on, int index, QBarSet *) {
        if (!on || index < 0 || index >= m_bars.size()) {
            QToolTip::hideText();
            return;
        }
        const Bar &b = m_bars.at(index);
        QToolTip::showText(QCursor::pos(), tr("%1\nmedian %2 ms (min %3, max %4, std %5)")
                                               .arg(b.label)
                                               .arg(b.medianMs, 0, 'g', 4)
                                               .arg(b.minMs, 0, 'g', 4)
                                               .arg(b.maxMs, 0, 'g', 4)
                                               .arg(b.stdMs, 0, 'g', 3));
    });

    auto hline = [&](double ms, const QString &name, const QColor &colour, Qt::PenStyle style) {
        if (!std::isfinite(ms))
            return;
        auto *line = new QLineSeries;
        line->setName(QStringLiteral("%1 %2 ms").arg(name).arg(ms, 0, 'g', 4));
        line->append(-0.5, ms);
        line->append(std::max(0, n - 1) + 0.5, ms);
        line->setPen(QPen(colour, 2, style));
        m_chart->addSeries(line);
        line->attachAxis(lineX);
        line->attachAxis(y);
        top = std::max(top, ms);
    };
    hline(m_eagerMs, tr("PyTorch eager"), QColor(0x7a, 0x4f, 0xb0), Qt::DashLine);
    hline(m_graphMs, tr("CUDA graph"), QColor(0x2e, 0x9e, 0x6a), Qt::DashDotLine);

    // The score path: best eligible latency so far, as a step line through the stages.
    const QList<double> best = bestSoFar(m_bars);
    auto *path = new QLineSeries;
    path->setName(tr("best so far"));
    path->setPen(QPen(m_dark ? QColor(0xf0, 0xd0, 0x40) : QColor(0x20, 0x20, 0x20), 2));
    double previous = kNoValue;
    for (int i = 0; i < best.size(); ++i) {
        if (!std::isfinite(best.at(i)))
            continue;
        if (std::isfinite(previous) && previous != best.at(i))
            path->append(i - 0.5, previous);
        else if (!std::isfinite(previous))
            path->append(i - 0.5, best.at(i));
        if (std::isfinite(previous) && previous != best.at(i))
            path->append(i - 0.5, best.at(i));
        path->append(i + 0.5, best.at(i));
        previous = best.at(i);
    }
    m_chart->addSeries(path);
    path->attachAxis(lineX);
    path->attachAxis(y);

    y->setRange(0, top > 0 ? top * 1.1 : 1.0);
    y->applyNiceNumbers();
    // The legend shows the bar colours and lines; the sets that are empty would only confuse.
    for (QLegendMarker *m : m_chart->legend()->markers(bars)) {
        if (auto *bm = qobject_cast<QBarLegendMarker *>(m)) {
            bool any = false;
            for (int i = 0; i < bm->barset()->count(); ++i)
                any = any || bm->barset()->at(i) > 0;
            m->setVisible(any);
        }
    }
}

QPointF LatencyChart::barCenter(int index) const
{
    if (index < 0 || index >= m_bars.size())
        return {};
    const QList<QAbstractSeries *> series = m_chart->series();
    QAbstractSeries *bars = series.isEmpty() ? nullptr : series.first();
    const QPointF inChart = m_chart->mapToPosition(QPointF(index, m_bars.at(index).medianMs / 2), bars);
    const QPointF inScene = m_chart->mapToScene(inChart);
    return QPointF(m_view->mapFromScene(inScene)); // viewport coordinates
}

QWidget *LatencyChart::viewWidget() const
{
    return m_view->viewport();
}

template<typename Paint>
void LatencyChart::renderAt(QSize size, Paint paint) const
{
    // Lay the chart out at the export size, paint its scene, and put it back: the export does not
    // depend on the widget being shown or on its current size.
    const QRectF old = m_chart->geometry();
    m_chart->resize(size);
    if (QGraphicsLayout *l = m_chart->layout())
        l->activate();
    paint(QRectF(m_chart->pos(), QSizeF(size)));
    m_chart->setGeometry(old);
    if (QGraphicsLayout *l = m_chart->layout())
        l->activate();
}

QImage LatencyChart::toImage(QSize size) const
{
    QImage image(size, QImage::Format_ARGB32_Premultiplied);
    image.fill(m_dark ? Qt::black : Qt::white);
    renderAt(size, [&](const QRectF &source) {
        QPainter p(&image);
        p.setRenderHint(QPainter::Antialiasing);
        m_chart->scene()->render(&p, QRectF(QPointF(0, 0), QSizeF(size)), source);
    });
    return image;
}

bool LatencyChart::savePng(const QString &path, QSize size, QString *error) const
{
    const QImage image = toImage(size);
    if (!image.save(path, "PNG")) {
        if (error)
            *error = tr("cannot write %1").arg(path);
        return false;
    }
    return true;
}

bool LatencyChart::saveSvg(const QString &path, QSize size, QString *error) const
{
    QSvgGenerator svg;
    svg.setFileName(path);
    svg.setSize(size);
    svg.setViewBox(QRect(QPoint(0, 0), size));
    svg.setTitle(m_chart->title());
    svg.setDescription(tr("Kernel Workbench latency chart"));
    bool ok = false;
    renderAt(size, [&](const QRectF &source) {
        QPainter p;
        if (!p.begin(&svg))
            return;
        m_chart->scene()->render(&p, QRectF(QPointF(0, 0), QSizeF(size)), source);
        ok = p.end();
    });
    if (!ok || QFile(path).size() == 0) {
        if (error)
            *error = tr("cannot write %1").arg(path);
        return false;
    }
    return true;
}

void LatencyChart::setDark(bool dark)
{
    m_dark = dark;
    rebuild();
}

} // namespace kwb
