// SPDX-License-Identifier: MIT
#include "gpu/nvml.h"

#include <QMutexLocker>

#include <dlfcn.h>

namespace kwb::gpu {

// A named namespace, not an anonymous one: Nvml::Api's members use these types, and a class whose
// members have internal-linkage types is flagged (-Wsubobject-linkage) once this file is compiled as
// part of a unity source (CMAKE_UNITY_BUILD).
namespace nvmlabi {

// The handful of NVML declarations used here. They follow NVML's documented, stable C ABI
// (nvml.h of the CUDA Toolkit / NVML API Reference): the CUDA Toolkit on the build machines ships
// no nvml.h, and the library itself comes with the driver, so it is loaded at run time.
using nvmlReturn_t = int;
constexpr nvmlReturn_t NVML_SUCCESS = 0;
using nvmlDevice_t = struct nvmlDevice_st *;
struct nvmlMemory_t {
    unsigned long long total;
    unsigned long long free;
    unsigned long long used;
};
struct nvmlUtilization_t {
    unsigned int gpu;
    unsigned int memory;
};
constexpr int NVML_CLOCK_SM = 1; // nvmlClockType_t
constexpr int NVML_CLOCK_MEM = 2;
constexpr int NVML_TEMPERATURE_GPU = 0; // nvmlTemperatureSensors_t
constexpr unsigned int kNameLength = 96; // NVML_DEVICE_NAME_V2_BUFFER_SIZE
constexpr unsigned int kVersionLength = 80; // NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE

} // namespace nvmlabi
using namespace nvmlabi;

struct Nvml::Api {
    nvmlReturn_t (*init)() = nullptr; // nvmlInit_v2
    const char *(*errorString)(nvmlReturn_t) = nullptr;
    nvmlReturn_t (*driverVersion)(char *, unsigned int) = nullptr;
    nvmlReturn_t (*deviceCount)(unsigned int *) = nullptr; // nvmlDeviceGetCount_v2
    nvmlReturn_t (*handleByIndex)(unsigned int, nvmlDevice_t *) = nullptr; // nvmlDeviceGetHandleByIndex_v2
    nvmlReturn_t (*name)(nvmlDevice_t, char *, unsigned int) = nullptr;
    nvmlReturn_t (*memoryInfo)(nvmlDevice_t, nvmlMemory_t *) = nullptr;
    nvmlReturn_t (*clockInfo)(nvmlDevice_t, int, unsigned int *) = nullptr;
    nvmlReturn_t (*utilization)(nvmlDevice_t, nvmlUtilization_t *) = nullptr;
    nvmlReturn_t (*temperature)(nvmlDevice_t, int, unsigned int *) = nullptr;

    QString error(nvmlReturn_t r) const
    {
        return errorString ? QString::fromUtf8(errorString(r)) : QStringLiteral("NVML error %1").arg(r);
    }
};

QString GpuStatus::summary() const
{
    if (!available || devices.isEmpty())
        return QStringLiteral("no NVIDIA GPU (%1)").arg(reason);
    const DeviceStatus &d = devices.first();
    QStringList parts{d.name};
    constexpr double GiB = 1024.0 * 1024.0 * 1024.0;
    if (d.memoryTotalBytes > 0)
        parts << QStringLiteral("%1 / %2 GiB")
                     .arg(d.memoryUsedBytes / GiB, 0, 'f', 1)
                     .arg(d.memoryTotalBytes / GiB, 0, 'f', 1);
    if (d.smClockMHz >= 0)
        parts << QStringLiteral("SM %1 MHz").arg(d.smClockMHz);
    if (d.memoryClockMHz >= 0)
        parts << QStringLiteral("mem %1 MHz").arg(d.memoryClockMHz);
    if (d.gpuUtilizationPercent >= 0)
        parts << QStringLiteral("%1% busy").arg(d.gpuUtilizationPercent);
    if (d.temperatureC >= 0)
        parts << QStringLiteral("%1 °C").arg(d.temperatureC);
    if (devices.size() > 1)
        parts << QStringLiteral("+%1 more").arg(devices.size() - 1);
    return parts.join(QStringLiteral(" · "));
}

Nvml::Nvml(const QString &libraryPath)
    : m_path(libraryPath)
{
    if (m_path.isEmpty())
        m_path = qEnvironmentVariable("KWB_NVML_LIBRARY", QStringLiteral("libnvidia-ml.so.1"));
}

Nvml::~Nvml()
{
    // nvmlShutdown is left out on purpose: other code in the process (PyTorch in an embedded
    // interpreter, a second instance) may share NVML's reference count; dlclose is enough.
    delete m_api;
    if (m_handle)
        dlclose(m_handle);
}

bool Nvml::load(QString *why)
{
    m_handle = dlopen(m_path.toLocal8Bit().constData(), RTLD_NOW | RTLD_LOCAL);
    if (!m_handle) {
        const char *err = dlerror();
        *why = QStringLiteral("library not found: %1%2")
                   .arg(m_path, err ? QStringLiteral(" (%1)").arg(QString::fromLocal8Bit(err)) : QString());
        return false;
    }
    m_api = new Api;
    auto sym = [this](const char *name) { return dlsym(m_handle, name); };
    // Function pointers from dlsym: the ABI above says what each one is.
    m_api->init = reinterpret_cast<decltype(m_api->init)>(sym("nvmlInit_v2"));
    m_api->errorString = reinterpret_cast<decltype(m_api->errorString)>(sym("nvmlErrorString"));
    m_api->driverVersion = reinterpret_cast<decltype(m_api->driverVersion)>(sym("nvmlSystemGetDriverVersion"));
    m_api->deviceCount = reinterpret_cast<decltype(m_api->deviceCount)>(sym("nvmlDeviceGetCount_v2"));
    m_api->handleByIndex = reinterpret_cast<decltype(m_api->handleByIndex)>(sym("nvmlDeviceGetHandleByIndex_v2"));
    m_api->name = reinterpret_cast<decltype(m_api->name)>(sym("nvmlDeviceGetName"));
    m_api->memoryInfo = reinterpret_cast<decltype(m_api->memoryInfo)>(sym("nvmlDeviceGetMemoryInfo"));
    m_api->clockInfo = reinterpret_cast<decltype(m_api->clockInfo)>(sym("nvmlDeviceGetClockInfo"));
    m_api->utilization = reinterpret_cast<decltype(m_api->utilization)>(sym("nvmlDeviceGetUtilizationRates"));
    m_api->temperature = reinterpret_cast<decltype(m_api->temperature)>(sym("nvmlDeviceGetTemperature"));
    if (!m_api->init || !m_api->deviceCount || !m_api->handleByIndex) {
        *why = QStringLiteral("library not usable: %1 lacks nvmlInit_v2 / nvmlDeviceGetCount_v2").arg(m_path);
        return false;
    }
    return true;
}

GpuStatus Nvml::query()
{
    QMutexLocker lock(&m_mutex);
    GpuStatus s;
    if (!m_tried) {
        m_tried = true;
        if (!load(&m_loadError) && m_handle) {
            dlclose(m_handle);
            m_handle = nullptr;
        }
    }
    if (!m_handle) {
        s.reason = m_loadError;
        return s;
    }
    if (!m_initialised) {
        const nvmlReturn_t r = m_api->init();
        if (r != NVML_SUCCESS) { // e.g. driver not loaded: tried again on the next query
            s.reason = QStringLiteral("NVML init failed: %1").arg(m_api->error(r));
            return s;
        }
        m_initialised = true;
    }
    if (m_api->driverVersion) {
        char version[kVersionLength] = {};
        if (m_api->driverVersion(version, kVersionLength) == NVML_SUCCESS)
            s.driverVersion = QString::fromUtf8(version);
    }
    unsigned int count = 0;
    if (const nvmlReturn_t r = m_api->deviceCount(&count); r != NVML_SUCCESS) {
        s.reason = QStringLiteral("cannot count devices: %1").arg(m_api->error(r));
        return s;
    }
    for (unsigned int i = 0; i < count; ++i) {
        nvmlDevice_t dev = nullptr;
        if (m_api->handleByIndex(i, &dev) != NVML_SUCCESS)
            continue; // e.g. a device the user may not see
        DeviceStatus d;
        d.index = static_cast<int>(i);
        char name[kNameLength] = {};
        if (m_api->name && m_api->name(dev, name, kNameLength) == NVML_SUCCESS)
            d.name = QString::fromUtf8(name);
        nvmlMemory_t mem{};
        if (m_api->memoryInfo && m_api->memoryInfo(dev, &mem) == NVML_SUCCESS) {
            d.memoryUsedBytes = static_cast<qint64>(mem.used);
            d.memoryTotalBytes = static_cast<qint64>(mem.total);
        }
        unsigned int v = 0;
        if (m_api->clockInfo && m_api->clockInfo(dev, NVML_CLOCK_SM, &v) == NVML_SUCCESS)
            d.smClockMHz = static_cast<int>(v);
        if (m_api->clockInfo && m_api->clockInfo(dev, NVML_CLOCK_MEM, &v) == NVML_SUCCESS)
            d.memoryClockMHz = static_cast<int>(v);
        nvmlUtilization_t u{};
        if (m_api->utilization && m_api->utilization(dev, &u) == NVML_SUCCESS) {
            d.gpuUtilizationPercent = static_cast<int>(u.gpu);
            d.memoryUtilizationPercent = static_cast<int>(u.memory);
        }
        if (m_api->temperature && m_api->temperature(dev, NVML_TEMPERATURE_GPU, &v) == NVML_SUCCESS)
            d.temperatureC = static_cast<int>(v);
        s.devices.append(d);
    }
    s.available = !s.devices.isEmpty();
    if (!s.available)
        s.reason = QStringLiteral("no device");
    return s;
}

Nvml &Nvml::shared()
{
    static Nvml instance;
    return instance;
}

GpuStatus queryGpuStatus()
{
    return Nvml::shared().query();
}

} // namespace kwb::gpu
