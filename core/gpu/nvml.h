// SPDX-License-Identifier: MIT
#pragma once

// GPU status through NVML, loaded at run time from the driver (dlopen "libnvidia-ml.so.1"), so
// the workbench builds and runs without the CUDA Toolkit or a GPU and says why there is none.

#include <QList>
#include <QMutex>
#include <QString>

namespace kwb::gpu {

/// One device as NVML reports it; -1 for a figure NVML could not give (e.g. clocks on some vGPUs).
struct DeviceStatus {
    int index = 0;
    QString name; ///< e.g. "NVIDIA H100 80GB HBM3"
    qint64 memoryUsedBytes = -1;
    qint64 memoryTotalBytes = -1;
    int smClockMHz = -1;
    int memoryClockMHz = -1;
    int gpuUtilizationPercent = -1;
    int memoryUtilizationPercent = -1; ///< memory-controller busy time, not occupancy
    int temperatureC = -1;
    bool operator==(const DeviceStatus &) const = default;
};

/// The answer of one query: devices, or no GPU with the reason.
struct GpuStatus {
    bool available = false; ///< at least one device
    QString reason; ///< when not available: "library not found: ...", "no device", "NVML init failed: ..."
    QString driverVersion;
    QList<DeviceStatus> devices;

    /// One line for a status bar: the first device's figures, or "no NVIDIA GPU (reason)".
    QString summary() const;
};

/// A loaded (or failed-to-load) NVML. Queries are serialised by a mutex, so one instance may be
/// used from any thread. NVML is initialised once on the first query and kept initialised: its
/// nvmlInit can take a few hundred ms, while the per-device queries take microseconds.
class Nvml
{
public:
    /// `libraryPath` empty: $KWB_NVML_LIBRARY when set, else "libnvidia-ml.so.1" (the driver's).
    explicit Nvml(const QString &libraryPath = {});
    ~Nvml();
    Nvml(const Nvml &) = delete;
    Nvml &operator=(const Nvml &) = delete;

    GpuStatus query();
    /// The library this instance loads.
    QString libraryPath() const { return m_path; }

    /// The process-wide instance (what the GPU status widget polls).
    static Nvml &shared();

private:
    struct Api;
    bool load(QString *why);

    QString m_path;
    QMutex m_mutex;
    void *m_handle = nullptr;
    Api *m_api = nullptr;
    bool m_tried = false;
    bool m_initialised = false;
    QString m_loadError;
};

/// Nvml::shared().query().
GpuStatus queryGpuStatus();

} // namespace kwb::gpu
