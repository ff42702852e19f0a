// SPDX-License-Identifier: MIT
#include "gpu/gpustatuswidget.h"

#include <QRegularExpression>
#include <QtConcurrent/QtConcurrentRun>

namespace kwb {

GpuStatusWidget::GpuStatusWidget(QWidget *parent)
    : QLabel(parent)
    , m_query(&gpu::queryGpuStatus)
{
    setObjectName(QStringLiteral("gpuStatus"));
    setTextFormat(Qt::PlainText);
    setText(tr("GPU: …"));
    m_timer.setInterval(2000);
    connect(&m_timer, &QTimer::timeout, this, &GpuStatusWidget::refresh);
    connect(&m_watcher, &QFutureWatcher<gpu::GpuStatus>::finished, this, &GpuStatusWidget::onQueryFinished);
}

GpuStatusWidget::~GpuStatusWidget()
{
    m_timer.stop();
    // A query still running holds no pointer to this widget (it returns a value), but its
    // watcher does: wait for it so the watcher is not destroyed under a finishing future.
    m_watcher.waitForFinished();
}

void GpuStatusWidget::setQueryFunction(std::function<gpu::GpuStatus()> query)
{
    m_query = std::move(query);
}

void GpuStatusWidget::refresh()
{
    if (m_watcher.isRunning())
        return; // a slow driver: skip this tick rather than pile up queries
    m_watcher.setFuture(QtConcurrent::run(m_query));
}

void GpuStatusWidget::onQueryFinished()
{
    m_status = m_watcher.result();
    // Short enough for the status bar at 1280 px: the reason and the clocks are in the tooltip.
    setText(QStringLiteral("GPU: ") + (m_status.available && !m_status.devices.isEmpty() ? m_status.summary().remove(QRegularExpression(QStringLiteral(" · mem \\d+ MHz")))
                                                                                        : tr("no NVIDIA GPU")));
    QStringList tip;
    if (!m_status.driverVersion.isEmpty())
        tip << tr("driver %1").arg(m_status.driverVersion);
    for (const gpu::DeviceStatus &d : m_status.devices)
        tip << tr("%1: %2, %3 / %4 MiB, SM %5 MHz, mem %6 MHz, GPU %7%, memory controller %8%, %9 °C")
                   .arg(d.index)
                   .arg(d.name)
                   .arg(d.memoryUsedBytes >> 20)
                   .arg(d.memoryTotalBytes >> 20)
                   .arg(d.smClockMHz)
                   .arg(d.memoryClockMHz)
                   .arg(d.gpuUtilizationPercent)
                   .arg(d.memoryUtilizationPercent)
                   .arg(d.temperatureC);
    if (!m_status.available)
        tip << tr("no NVIDIA GPU: %1").arg(m_status.reason);
    else
        tip.prepend(m_status.summary());
    setToolTip(tip.join(u'\n'));
    emit statusUpdated(m_status);
}

void GpuStatusWidget::showEvent(QShowEvent *event)
{
    QLabel::showEvent(event);
    refresh();
    m_timer.start();
}

void GpuStatusWidget::hideEvent(QHideEvent *event)
{
    QLabel::hideEvent(event); // nobody looks: no polling
    m_timer.stop();
}

} // namespace kwb
