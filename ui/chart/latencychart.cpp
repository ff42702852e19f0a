// SPDX-License-Identifier: MIT
#include "chart/latencychart.h"

#include "icons.h"
#include "speedup.h"

#include <QtCharts/QBarCategoryAxis>
#include <QtCharts/QAreaSeries>
#include <QtCharts/QBoxPlotSeries>
#include <QtCharts/QBoxSet>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QLegendMarker>
#include <QtCharts/QLineSeries>
#include <QtCharts/QLogValueAxis>
#include <QtCharts/QValueAxis>

#include <QCheckBox>
#include <QFile>
#include <QFontMetricsF>
#include <QGraphicsLayout>
#include <QGraphicsRectItem>
#include <QGraphicsSimpleTextItem>
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
QColor eagerColour() { return QColor(0x8e, 0x5c, 0xc8); }
QColor graphColour() { return QColor(0x2e, 0x9e, 0x6a); }

QString msText(double ms)
{
    return QStringLiteral("%1 ms").arg(ms, 0, 'g', ms < 1000 ? 3 : 4);
}

/// A text on a translucent backing box, so that it reads over bars and grid lines.
QGraphicsRectItem *makeLabel(QGraphicsItem *parent, const QString &text, const QColor &colour, const QColor &backing,
                             const QFont &font)
{
    auto *box = new QGraphicsRectItem(parent);
    auto *t = new QGraphicsSimpleTextItem(text, box);
    t->setFont(font);
    t->setBrush(colour);
    const QRectF r = t->boundingRect();
    box->setRect(r.adjusted(-2, 0, 2, 0));
    box->setPen(Qt::NoPen);
    box->setBrush(backing);
    box->setZValue(20);
    return box;
}
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
    m_chart->setMargins(QMargins(4, 4, 4, 4));
    // Over the chart's top-right corner: it costs no height in a short dock.
    m_logBox = new QCheckBox(tr("Log scale"), m_view);
    m_logBox->setObjectName(QStringLiteral("latencyLogScale"));
    m_logBox->setToolTip(tr("Logarithmic latency axis; on by itself when the values span more than %1x").arg(kLogRatio));
    connect(m_logBox, &QCheckBox::clicked, this, [this](bool on) { setScale(on ? Scale::Log : Scale::Linear); });
    connect(m_chart, &QChart::plotAreaChanged, this, [this] { placeLabels(); });
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
        b.label = QStringLiteral("%1<br>%2").arg(c.id, toName(c.kind)); // two lines: a narrow slot cuts neither
        b.medianMs = s.medianMs;
        b.minMs = finiteOr(s.minMs, s.medianMs);
        b.maxMs = finiteOr(s.maxMs, s.medianMs);
        b.stdMs = finiteOr(s.stdMs, 0.0);
        b.eligible = c.isEligibleForBest();
        b.correct = c.isCorrect();
        if (!b.correct) {
            b.speedup = icons::statusText(c); // no speedup for a wrong result: say what it is
        } else if (const Speedup g = Speedup::vsGraph(*c.eval); g.isValid()) {
            b.speedup = tr("%1 graph").arg(g.shortText());
        } else if (const Speedup e = Speedup::vsEager(*c.eval); e.isValid()) {
            b.speedup = tr("%1 eager").arg(e.shortText());
        }
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

void LatencyChart::setScale(Scale scale)
{
    m_scale = scale;
    rebuild();
}

QStringList LatencyChart::barLabels() const
{
    return m_labelTexts;
}

QString LatencyChart::axisTitle() const
{
    // Short: a vertical title longer than a 200 px chart's plot is cut.
    return m_log ? tr("ms (log)") : tr("ms");
}

void LatencyChart::rebuild()
{
    // Labels belong to the chart item: the old ones go with the old series.
    qDeleteAll(m_barLabels);
    qDeleteAll(m_lineLabels);
    m_barLabels.clear();
    m_lineLabels.clear();
    m_chart->removeAllSeries();
    for (QAbstractAxis *a : m_chart->axes()) {
        m_chart->removeAxis(a);
        delete a;
    }
    m_chart->setTitle(m_title.isEmpty() ? tr("Latency per candidate") : m_title);
    m_chart->setTheme(m_dark ? QChart::ChartThemeDark : QChart::ChartThemeLight);

    // The span of what is drawn decides the scale: medians and both baselines.
    double lo = std::numeric_limits<double>::infinity();
    double hi = 0;
    auto see = [&](double v) {
        if (std::isfinite(v) && v > 0) {
            lo = std::min(lo, v);
            hi = std::max(hi, v);
        }
    };
    for (const Bar &b : m_bars)
        see(b.medianMs);
    see(m_eagerMs);
    see(m_graphMs);
    m_log = m_scale == Scale::Log ? hi > 0 : m_scale == Scale::Linear ? false : wantsLogScale(lo, hi);
    {
        const QSignalBlocker block(m_logBox);
        m_logBox->setChecked(m_log);
    }

    const int n = static_cast<int>(m_bars.size());
    auto *categories = new QBarCategoryAxis;
    auto *lineX = new QValueAxis; // the lines' x: category i is drawn at x = i
    lineX->setRange(-0.5, std::max(0, n - 1) + 0.5);
    lineX->setVisible(false);
    QAbstractAxis *y = nullptr;
    if (m_log) {
        auto *logY = new QLogValueAxis;
        logY->setBase(10);
        logY->setLabelFormat(QStringLiteral("%g"));
        logY->setMinorTickCount(8);
        // Minor lines help read a log axis, but quietly: full-strength they crowd the bars.
        QColor minor = m_dark ? QColor(255, 255, 255, 28) : QColor(0, 0, 0, 22);
        logY->setMinorGridLinePen(QPen(minor, 1));
        y = logY;
    } else {
        auto *linY = new QValueAxis;
        linY->setLabelFormat(QStringLiteral("%.3g"));
        y = linY;
    }
    y->setTitleText(axisTitle());
    m_chart->addAxis(categories, Qt::AlignBottom);
    m_chart->addAxis(lineX, Qt::AlignTop);
    m_chart->addAxis(y, Qt::AlignLeft);

    // The axis floor first: bars stand on it (0, or the decade below the smallest value on a log axis).
    if (m_log) {
        double floorV = std::isfinite(lo) ? lo : 1.0;
        for (const Bar &b : m_bars)
            if (b.minMs > 0)
                floorV = std::min(floorV, b.minMs);
        m_axisMin = std::pow(10.0, std::floor(std::log10(floorV)));
    } else {
        m_axisMin = 0;
    }

    // One area per bar (a rectangle from the floor to the median), coloured by eligibility. Not a
    // bar series: those start at 0, which a log axis cannot place, and Qt 6.4 has no per-bar colour.
    auto *spread = new QBoxPlotSeries;
    spread->setName(tr("spread: box ± std, whiskers min–max"));
    spread->setBoxWidth(0.2);
    spread->setBrush(QColor(255, 255, 255, 90));
    spread->setPen(QPen(m_dark ? QColor(0xe0, 0xe0, 0xe0) : QColor(0x30, 0x30, 0x30), 1.2));
    double top = 0;
    QStringList labels;
    bool anyEligible = false, anyViolation = false, anyWrong = false;
    for (int i = 0; i < n; ++i) {
        const Bar &b = m_bars.at(i);
        labels.append(b.label);
        const QColor colour = b.eligible ? eligibleColour() : b.correct ? violationColour() : wrongColour();
        anyEligible = anyEligible || b.eligible;
        anyViolation = anyViolation || (!b.eligible && b.correct);
        anyWrong = anyWrong || !b.correct;
        auto *upper = new QLineSeries;
        auto *lower = new QLineSeries;
        upper->append(i - 0.3, b.medianMs);
        upper->append(i + 0.3, b.medianMs);
        lower->append(i - 0.3, m_axisMin);
        lower->append(i + 0.3, m_axisMin);
        auto *bar = new QAreaSeries(upper, lower);
        upper->setParent(bar);
        lower->setParent(bar);
        bar->setName(b.id);
        bar->setBrush(colour);
        bar->setPen(QPen(colour.darker(130), 1));
        m_chart->addSeries(bar);
        bar->attachAxis(lineX);
        bar->attachAxis(y);
        const QString id = b.id;
        connect(bar, &QAreaSeries::clicked, this, [this, id] { emit candidateClicked(id); });
        connect(bar, &QAreaSeries::hovered, this, [this, i](const QPointF &, bool on) {
            if (!on || i >= m_bars.size()) {
                QToolTip::hideText();
                return;
            }
            const Bar &b = m_bars.at(i);
            QToolTip::showText(QCursor::pos(), tr("%1\nmedian %2 ms (min %3, max %4, std %5)\n%6")
                                                   .arg(QString(b.label).replace(QStringLiteral("<br>"), QStringLiteral(" ")))
                                                   .arg(b.medianMs, 0, 'g', 4)
                                                   .arg(b.minMs, 0, 'g', 4)
                                                   .arg(b.maxMs, 0, 'g', 4)
                                                   .arg(b.stdMs, 0, 'g', 3)
                                                   .arg(b.speedup));
        });
        for (QLegendMarker *m : m_chart->legend()->markers(bar))
            m->setVisible(false);
        const double lo = std::min(b.minMs, b.medianMs);
        const double hi = std::max(b.maxMs, b.medianMs);
        auto *box = new QBoxSet(lo, std::max(lo, b.medianMs - b.stdMs), b.medianMs, std::min(hi, b.medianMs + b.stdMs),
                                hi, b.id);
        spread->append(box);
        top = std::max(top, hi);
    }
    categories->append(labels.isEmpty() ? QStringList{QString()} : labels);
    categories->setLabelsAngle(labels.size() > 12 ? -60 : 0);
    // The legend's colour keys: series without points, one per colour that is used.
    auto key = [&](bool used, const QString &name, const QColor &colour) {
        if (!used)
            return;
        auto *k = new QLineSeries;
        k->setName(name);
        k->setPen(QPen(colour, 8));
        m_chart->addSeries(k);
        k->attachAxis(lineX);
        k->attachAxis(y);
    };
    key(anyEligible, tr("eligible"), eligibleColour());
    key(anyViolation, tr("correct, integrity violation"), violationColour());
    key(anyWrong, tr("not correct"), wrongColour());
    m_chart->addSeries(spread);
    spread->attachAxis(categories);
    spread->attachAxis(y);
    connect(spread, &QBoxPlotSeries::clicked, this, [this](QBoxSet *set) { emit candidateClicked(set->label()); });

    auto hline = [&](double ms, const QString &name, const QColor &colour, Qt::PenStyle style) {
        if (!std::isfinite(ms))
            return;
        auto *line = new QLineSeries;
        line->setName(QStringLiteral("%1 %2").arg(name, msText(ms)));
        line->append(-0.5, ms);
        line->append(std::max(0, n - 1) + 0.5, ms);
        line->setPen(QPen(colour, 2, style));
        m_chart->addSeries(line);
        line->attachAxis(lineX);
        line->attachAxis(y);
        top = std::max(top, ms);
    };
    hline(m_eagerMs, tr("PyTorch eager"), eagerColour(), Qt::DashLine);
    hline(m_graphMs, tr("CUDA graph"), graphColour(), Qt::DashDotLine);

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

    if (m_log) {
        // Whole decades, with room above the tallest whisker for its label.
        const double ceilV = std::pow(10.0, std::ceil(std::log10(std::max(top, m_axisMin) * 4)));
        static_cast<QLogValueAxis *>(y)->setRange(m_axisMin, ceilV);
    } else {
        auto *linY = static_cast<QValueAxis *>(y);
        linY->setRange(0, top > 0 ? top * 1.25 : 1.0); // room for the labels over the bars
        linY->applyNiceNumbers();
    }

    // Labels: median and speedup over each bar; the baselines' names and values at the lines' right end.
    const QColor text = m_dark ? QColor(0xe8, 0xe8, 0xe8) : QColor(0x20, 0x20, 0x20);
    const QColor backing = m_dark ? QColor(0x20, 0x20, 0x20, 200) : QColor(0xff, 0xff, 0xff, 200);
    QFont font = m_chart->font();
    font.setPointSizeF(std::max(7.0, font.pointSizeF() - 1));
    for (const Bar &b : m_bars) {
        const QString t = b.speedup.isEmpty() ? msText(b.medianMs) : QStringLiteral("%1\n%2").arg(msText(b.medianMs), b.speedup);
        m_barLabels.append(makeLabel(m_chart, t, text, backing, font));
    }
    if (std::isfinite(m_eagerMs))
        m_lineLabels.append(makeLabel(m_chart, tr("eager %1").arg(msText(m_eagerMs)), eagerColour(), backing, font));
    else
        m_lineLabels.append(nullptr);
    if (std::isfinite(m_graphMs))
        m_lineLabels.append(makeLabel(m_chart, tr("CUDA graph %1").arg(msText(m_graphMs)), graphColour(), backing, font));
    else
        m_lineLabels.append(nullptr);
    m_lineLabels.removeAll(nullptr);
    // The baselines' labels sit right of the plot, in a margin of their width: never over a bar.
    qreal labelWidth = 0;
    for (QGraphicsItem *l : std::as_const(m_lineLabels))
        labelWidth = std::max(labelWidth, l->boundingRect().width());
    m_chart->setMargins(QMargins(4, 4, 4 + int(std::ceil(labelWidth)), 4));
    placeLabels();
}

void LatencyChart::placeLabels()
{
    const QList<QAbstractSeries *> series = m_chart->series();
    if (series.isEmpty())
        return;
    QAbstractSeries *bars = series.first();
    const QRectF plot = m_chart->plotArea();
    const int n = static_cast<int>(m_bars.size());
    const double slot = n > 0 ? plot.width() / n : plot.width();
    m_labelTexts.clear();
    for (int i = 0; i < m_barLabels.size() && i < n; ++i) {
        QGraphicsItem *label = m_barLabels.at(i);
        const Bar &b = m_bars.at(i);
        const QRectF r = label->boundingRect();
        const QPointF top = m_chart->mapToPosition(QPointF(i, std::max(b.maxMs, b.medianMs)), bars);
        // Too narrow a slot: no label (the tooltip has it) rather than labels over each other.
        const bool fits = r.width() <= slot * 0.98 && plot.height() > 3 * r.height();
        label->setVisible(fits);
        auto *text = label->childItems().isEmpty() ? nullptr : dynamic_cast<QGraphicsSimpleTextItem *>(label->childItems().first());
        m_labelTexts.append(fits && text ? text->text() : QString());
        const double y = std::max(plot.top(), top.y() - r.height() - 2);
        label->setPos(top.x() - r.width() / 2, y);
    }
    // Baseline labels at the right end of their lines, pushed apart when the lines are close.
    double lastBottom = -1e9;
    QList<QPair<double, QGraphicsItem *>> lines;
    int k = 0;
    for (double ms : {m_eagerMs, m_graphMs}) {
        if (!std::isfinite(ms))
            continue;
        if (k < m_lineLabels.size())
            lines.append({m_chart->mapToPosition(QPointF(std::max(0, n - 1) + 0.5, ms), series.last()).y(), m_lineLabels.at(k++)});
    }
    std::sort(lines.begin(), lines.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
    for (const auto &[lineY, item] : lines) {
        const QRectF r = item->boundingRect();
        double y = std::max(lineY - r.height() / 2, lastBottom + 1);
        y = std::clamp(y, plot.top(), std::max(plot.top(), plot.bottom() - r.height()));
        item->setPos(plot.right() + 4, y);
        lastBottom = y + r.height();
    }
}

void LatencyChart::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    m_logBox->adjustSize();
    m_logBox->move(m_view->width() - m_logBox->width() - 10, 6);
}

QPointF LatencyChart::barCenter(int index) const
{
    if (index < 0 || index >= m_bars.size())
        return {};
    const QList<QAbstractSeries *> series = m_chart->series();
    QAbstractSeries *bars = series.isEmpty() ? nullptr : series.first();
    const double median = m_bars.at(index).medianMs;
    // Half way up the bar as drawn: on a log axis that is the geometric middle.
    const double y = m_log && m_axisMin > 0 ? std::sqrt(m_axisMin * median) : median / 2;
    const QPointF inChart = m_chart->mapToPosition(QPointF(index, y), bars);
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
