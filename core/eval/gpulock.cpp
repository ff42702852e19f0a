// SPDX-License-Identifier: MIT
#include "eval/gpulock.h"

#include "env/locations.h"

#include <QDir>
#include <QLockFile>
#include <QRegularExpression>

namespace kwb {

namespace {
constexpr int PollMs = 50;
}

GpuLock::GpuLock(const QString &key, const QString &dir, QObject *parent)
    : QObject(parent)
{
    const QString d = dir.isEmpty() ? env::cacheDir() + QStringLiteral("/locks") : dir;
    QDir().mkpath(d);
    m_path = d + QLatin1Char('/') + key + QStringLiteral(".lock");
    m_file = std::make_unique<QLockFile>(m_path);
    // A lock is never stale while its holder lives (QLockFile checks the PID); a dead holder's file
    // is taken over at once regardless of age.
    m_file->setStaleLockTime(0);
    m_timer.setInterval(PollMs);
    connect(&m_timer, &QTimer::timeout, this, &GpuLock::poll);
}

GpuLock::~GpuLock()
{
    release();
}

QString GpuLock::keyForDevice(const QString &device)
{
    const QString d = device.trimmed().toLower();
    if (d == QLatin1String("cpu"))
        return QStringLiteral("cpu");
    static const QRegularExpression index(QStringLiteral("^cuda:(\\d+)$"));
    const auto m = index.match(d);
    if (m.hasMatch())
        return QStringLiteral("gpu") + m.captured(1);
    // "auto" and "cuda" take the first visible GPU.
    return QStringLiteral("gpu0");
}

bool GpuLock::tryAcquire()
{
    if (m_held)
        return true;
    m_held = m_file->tryLock(0);
    if (m_held)
        m_timer.stop();
    return m_held;
}

void GpuLock::acquire()
{
    if (m_held) {
        // Keep the promise of an asynchronous signal even when the lock is already ours.
        QMetaObject::invokeMethod(this, &GpuLock::acquired, Qt::QueuedConnection);
        return;
    }
    if (!m_timer.isActive())
        m_timer.start();
    QMetaObject::invokeMethod(this, &GpuLock::poll, Qt::QueuedConnection);
}

void GpuLock::poll()
{
    // A queued poll may arrive after release(): only a waiting lock tries.
    if (m_held || !m_timer.isActive())
        return;
    if (tryAcquire())
        Q_EMIT acquired();
}

void GpuLock::release()
{
    m_timer.stop();
    if (m_held) {
        m_file->unlock();
        m_held = false;
    }
}

} // namespace kwb
