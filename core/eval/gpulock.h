// SPDX-License-Identifier: MIT
#pragma once

#include <QObject>
#include <QString>
#include <QTimer>

#include <memory>

class QLockFile;

namespace kwb {

/// One evaluation per device at a time, also across processes: a QLockFile under
/// env::cacheDir()/locks. acquire() never blocks the event loop: tryLock is polled by a timer and
/// acquired() is emitted once the lock is held.
class GpuLock : public QObject
{
    Q_OBJECT
public:
    /// `key` names the device ("gpu0", "cpu"); `dir` defaults to env::cacheDir() + "/locks".
    explicit GpuLock(const QString &key, const QString &dir = {}, QObject *parent = nullptr);
    ~GpuLock() override;

    /// The lock-file name for a request's device string ("auto", "cuda", "cuda:1", "cpu").
    static QString keyForDevice(const QString &device);

    /// Starts trying; emits acquired() (possibly right away, from the event loop) when held.
    void acquire();
    /// Non-blocking single attempt.
    bool tryAcquire();
    void release();
    bool isHeld() const { return m_held; }
    bool isWaiting() const { return m_timer.isActive(); }
    QString filePath() const { return m_path; }

Q_SIGNALS:
    void acquired();

private:
    void poll();

    QString m_path;
    std::unique_ptr<QLockFile> m_file;
    QTimer m_timer;
    bool m_held = false;
};

} // namespace kwb
