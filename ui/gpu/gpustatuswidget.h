// SPDX-License-Identifier: MIT
#pragma once

#include "gpu/nvml.h"

#include <QFutureWatcher>
#include <QLabel>
#include <QTimer>

#include <functional>

namespace kwb {

/// One line of GPU status for the status bar: name, memory, SM and memory clocks, utilisation,
/// temperature, or "no NVIDIA GPU (reason)"; the tooltip lists every device. Polls every 2 s while
/// visible. Each query runs on a pool thread (QtConcurrent): NVML's per-device calls take
/// microseconds, but its first nvmlInit can take hundreds of ms, and the UI thread never waits.
class GpuStatusWidget : public QLabel
{
    Q_OBJECT
public:
    explicit GpuStatusWidget(QWidget *parent = nullptr);
    ~GpuStatusWidget() override;

    /// Replaces the query (tests, or a remote machine's status); default gpu::queryGpuStatus.
    void setQueryFunction(std::function<gpu::GpuStatus()> query);
    void setInterval(int ms) { m_timer.setInterval(ms); }
    int interval() const { return m_timer.interval(); }
    /// Starts one query now unless one is still running; statusUpdated() follows.
    void refresh();
    gpu::GpuStatus status() const { return m_status; }
    bool isPolling() const { return m_timer.isActive(); }

signals:
    void statusUpdated(const kwb::gpu::GpuStatus &status);

protected:
    void showEvent(QShowEvent *event) override;
    void hideEvent(QHideEvent *event) override;

private:
    void onQueryFinished();

    std::function<gpu::GpuStatus()> m_query;
    QFutureWatcher<gpu::GpuStatus> m_watcher;
    QTimer m_timer;
    gpu::GpuStatus m_status;
};

} // namespace kwb
