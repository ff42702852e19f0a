// SPDX-License-Identifier: MIT
#pragma once

#include "model/run.h"

#include <QObject>
#include <QStringList>

namespace kwb {

/// Opens run directories off the UI thread (QtConcurrent). Only the latest request's answer is
/// delivered: opening run B while run A is still loading drops A's result when it arrives.
class RunLoader : public QObject
{
    Q_OBJECT
public:
    explicit RunLoader(QObject *parent = nullptr);

    /// Starts loading `dir`; answers with loaded() or failed().
    void load(const QString &dir);
    bool isBusy() const { return m_busy; }

signals:
    void started(const QString &dir);
    void loaded(const QString &dir, const kwb::Run &run, const QStringList &warnings, qint64 elapsedMs);
    void failed(const QString &dir, const QString &error);

private:
    quint64 m_generation = 0;
    bool m_busy = false;
};

} // namespace kwb
