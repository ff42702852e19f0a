// SPDX-License-Identifier: MIT
// kwb_gpu: no GPU here is reported cleanly with its reason; the fake NVML exercises the device path.

#include "gpu/nvml.h"

#include <QTest>

using namespace kwb::gpu;

class TestNvml : public QObject
{
    Q_OBJECT
private slots:
    void thisMachine()
    {
        const GpuStatus s = queryGpuStatus();
        if (s.available)
            QSKIP("this machine has an NVIDIA GPU; the no-GPU path is covered by the cases below");
        QVERIFY(!s.reason.isEmpty());
        QVERIFY(s.devices.isEmpty());
        QVERIFY(s.summary().startsWith(QLatin1String("no NVIDIA GPU (")));
        // A second query answers the same without trying to load again.
        QCOMPARE(queryGpuStatus().reason, s.reason);
    }

    void libraryNotFound()
    {
        Nvml nvml(QStringLiteral("/nonexistent/libnvidia-ml.so.1"));
        const GpuStatus s = nvml.query();
        QVERIFY(!s.available);
        QVERIFY2(s.reason.startsWith(QLatin1String("library not found: /nonexistent/libnvidia-ml.so.1")), qPrintable(s.reason));
        QCOMPARE(s.summary(), QStringLiteral("no NVIDIA GPU (%1)").arg(s.reason));
    }

    void libraryWithoutNvml()
    {
        Nvml nvml(QStringLiteral("libc.so.6")); // loads, but is not NVML
        const GpuStatus s = nvml.query();
        QVERIFY(!s.available);
        QVERIFY2(s.reason.startsWith(QLatin1String("library not usable")), qPrintable(s.reason));
    }

    void noDevice()
    {
        qputenv("FAKE_NVML_DEVICES", "0");
        Nvml nvml(QStringLiteral(KWB_FAKE_NVML));
        const GpuStatus s = nvml.query();
        qunsetenv("FAKE_NVML_DEVICES");
        QVERIFY(!s.available);
        QCOMPARE(s.reason, QStringLiteral("no device"));
        QCOMPARE(s.driverVersion, QStringLiteral("550.54.15"));
    }

    void initFailsThenRecovers()
    {
        qputenv("FAKE_NVML_INIT_FAIL", "1");
        Nvml nvml(QStringLiteral(KWB_FAKE_NVML));
        GpuStatus s = nvml.query();
        QVERIFY(!s.available);
        QCOMPARE(s.reason, QStringLiteral("NVML init failed: Driver Not Loaded"));
        qunsetenv("FAKE_NVML_INIT_FAIL"); // the driver came up: the next poll sees the device
        s = nvml.query();
        QVERIFY(s.available);
    }

    void oneDevice()
    {
        Nvml nvml(QStringLiteral(KWB_FAKE_NVML));
        const GpuStatus s = nvml.query();
        QVERIFY2(s.available, qPrintable(s.reason));
        QCOMPARE(s.devices.size(), 1);
        const DeviceStatus &d = s.devices.first();
        QCOMPARE(d.name, QStringLiteral("NVIDIA Test GPU"));
        QCOMPARE(d.memoryTotalBytes, qint64(80) << 30);
        QCOMPARE(d.memoryUsedBytes, qint64(3) << 30);
        QCOMPARE(d.smClockMHz, 1980);
        QCOMPARE(d.memoryClockMHz, 2619);
        QCOMPARE(d.gpuUtilizationPercent, 42);
        QCOMPARE(d.memoryUtilizationPercent, 17);
        QCOMPARE(d.temperatureC, 51);
        QCOMPARE(s.summary(), QStringLiteral("NVIDIA Test GPU · 3.0 / 80.0 GiB · SM 1980 MHz · mem 2619 MHz · 42% busy · 51 °C"));
    }
};

QTEST_GUILESS_MAIN(TestNvml)
#include "tst_nvml.moc"
