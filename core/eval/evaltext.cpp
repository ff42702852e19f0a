// SPDX-License-Identifier: MIT
#include "eval/evaltext.h"

#include <QStringList>

#include <cmath>

namespace kwb::evaltext {

namespace {

QString num(double v, int width = 10)
{
    const QString s = std::isfinite(v) ? QString::number(v, 'f', v < 10 ? 4 : 2) : QStringLiteral("-");
    return s.rightJustified(width);
}

QString row(const QString &name, const LatencyStats &s)
{
    if (!s.isValid())
        return name.leftJustified(11) + QStringLiteral("        (not measured)");
    return name.leftJustified(11) + num(s.medianMs) + num(s.meanMs) + num(s.stdMs) + num(s.minMs) + num(s.maxMs)
        + (std::isfinite(s.cv) ? QString::number(s.cv * 100.0, 'f', 1) + QLatin1Char('%') : QStringLiteral("-"))
              .rightJustified(8)
        + QString::number(s.samples).rightJustified(6);
}

} // namespace

QString speedup(double x)
{
    return std::isfinite(x) ? QString::number(x, 'f', 2) + QLatin1Char('x') : QStringLiteral("n/a");
}

QString statusLine(const EvalResult &r)
{
    QString line = toName(r.status).toUpper();
    if (!r.reason.isEmpty())
        line += QStringLiteral(": ") + r.reason;
    return line;
}

QString contextLine(const EvalResult &r)
{
    QStringList parts;
    if (!r.device.isEmpty())
        parts << r.device;
    if (!r.torchVersion.isEmpty())
        parts << QStringLiteral("torch ") + r.torchVersion;
    if (!r.sandboxNote.isEmpty())
        parts << r.sandboxNote;
    parts << QStringLiteral("%1 s wall").arg(r.wallSeconds, 0, 'f', 1);
    return parts.join(QStringLiteral(" | "));
}

QString timingTable(const EvalResult &r)
{
    const QString unit = r.onGpu ? QStringLiteral("GPU") : QStringLiteral("CPU");
    QStringList lines;
    lines << QStringLiteral("ms").leftJustified(11) + QStringLiteral("median").rightJustified(10)
                 + QStringLiteral("mean").rightJustified(10) + QStringLiteral("std").rightJustified(10)
                 + QStringLiteral("min").rightJustified(10) + QStringLiteral("max").rightJustified(10)
                 + QStringLiteral("cv").rightJustified(8) + QStringLiteral("n").rightJustified(6);
    if (r.candidate.isValid())
        lines << row(QStringLiteral("candidate"), r.candidate);
    lines << row(QStringLiteral("eager"), r.eager);
    if (r.graph.isValid() || r.onGpu)
        lines << row(QStringLiteral("cuda graph"), r.graph);
    else
        lines << QStringLiteral("cuda graph").leftJustified(11) + QStringLiteral("        (GPU only)");
    if (r.candidate.isValid()) {
        lines << QStringLiteral("speedup vs eager: %1   vs CUDA graph: %2   (timings on %3)")
                     .arg(speedup(r.speedupVsEager()), speedup(r.speedupVsGraph()), unit);
    } else {
        lines << QStringLiteral("timings on %1").arg(unit);
    }
    return lines.join(QLatin1Char('\n'));
}

} // namespace kwb::evaltext
