// SPDX-License-Identifier: MIT
#pragma once

#include <QObject>

class QSocketNotifier;

namespace kwb {

/// Turns SIGINT / SIGTERM into a Qt signal (self-pipe), so a CLI can cancel its evaluation and kill
/// the worker's process group instead of leaving it running. One instance at a time.
class InterruptWatcher : public QObject
{
    Q_OBJECT
public:
    explicit InterruptWatcher(QObject *parent = nullptr);
    ~InterruptWatcher() override; ///< restores the previous handlers
    bool wasInterrupted() const { return m_interrupted; }

Q_SIGNALS:
    void interrupted();

private:
    QSocketNotifier *m_notifier = nullptr;
    bool m_interrupted = false;
};

} // namespace kwb
