// SPDX-License-Identifier: MIT
// GpuStatusWidget: shows "no NVIDIA GPU" with the reason here, polls while visible only, and
// shows a device's figures from a query function.

#include "gpu/gpustatuswidget.h"

#include <QSignalSpy>
#include <QTest>

using namespace kwb;

class TestGpuStatusWidget : public QObject
{
    Q_OBJECT
private slots:
    void noGpuHere()
    {
        GpuStatusWidget w;
        QSignalSpy spy(&w, &GpuStatusWidget::statusUpdated);
        w.show(); // the first query starts when shown
        QVERIFY(spy.wait(5000));
        if (w.status().available)
            QSKIP("this machine has an NVIDIA GPU");
        // The status bar shows a short line; the reason (a long library path) is in the tooltip.
        QCOMPARE(w.text(), QStringLiteral("GPU: no NVIDIA GPU"));
        QVERIFY(w.toolTip().contains(w.status().reason));
        QVERIFY(w.isPolling());
        QCOMPARE(w.interval(), 2000);
        w.hide();
        QVERIFY(!w.isPolling());
    }

    void showsDeviceAndPolls()
    {
        GpuStatusWidget w;
        int calls = 0;
        w.setQueryFunction([&calls] {
            gpu::GpuStatus s;
            s.available = true;
            gpu::DeviceStatus d;
            d.name = QStringLiteral("NVIDIA H100 80GB HBM3");
            d.memoryUsedBytes = qint64(1) << 30;
            d.memoryTotalBytes = qint64(80) << 30;
            d.smClockMHz = 1980;
            d.temperatureC = 40 + ++calls; // atomic enough: queries never overlap
            s.devices = {d};
            return s;
        });
        w.setInterval(10);
        QSignalSpy spy(&w, &GpuStatusWidget::statusUpdated);
        w.show();
        QTRY_VERIFY(spy.size() >= 3); // the timer keeps polling
        QVERIFY(w.text().startsWith(QStringLiteral("GPU: NVIDIA H100 80GB HBM3 · 1.0 / 80.0 GiB · SM 1980 MHz")));
        QVERIFY(w.toolTip().contains(QLatin1String("NVIDIA H100")));
    }
};

QTEST_MAIN(TestGpuStatusWidget)
#include "tst_gpustatuswidget.moc"
