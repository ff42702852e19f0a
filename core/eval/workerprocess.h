// SPDX-License-Identifier: MIT
#pragma once

#include "eval/sandbox.h"

#include <QElapsedTimer>
#include <QJsonObject>
#include <QObject>
#include <QProcess>
#include <QStringList>

namespace kwb {

/// One worker process (`PYTHON -u kwb_worker.py serve`) in its own session and process group,
/// with its own scratch directory. Speaks the JSON-line protocol (core/eval/PROTOCOL.md): emits
/// ready() after the worker's "ready" event, event() for every later message, and finished()
/// once the process is gone. kill() takes the whole process group down (grandchildren too).
class WorkerProcess : public QObject
{
    Q_OBJECT
public:
    WorkerProcess(const QString &python, const QString &scratchDir, const Sandbox &sandbox,
                  QObject *parent = nullptr);
    ~WorkerProcess() override; ///< kills the process group

    void start();
    /// CUDA_VISIBLE_DEVICES for the worker (a suite lane's GPU); empty: inherited. Before start().
    void setVisibleDevices(const QString &devices) { m_visibleDevices = devices; }
    /// Writes one request line; false when the worker is not running. A request with a "key" (hex)
    /// switches the channel to signed messages: from then on only lines signed with that key are
    /// events (PROTOCOL.md); anything else on stdout is logged and dropped.
    bool send(const QJsonObject &request);
    /// Lines refused since the request (unsigned, badly signed, not JSON).
    int refusedLines() const { return m_refused; }
    /// SIGKILL to the whole process group.
    void kill();

    bool isReady() const { return m_ready; }
    bool isRunning() const;
    bool hasExited() const { return m_exited; }
    QJsonObject readyInfo() const { return m_readyInfo; }
    QString python() const { return m_python; }
    QString scratchDir() const { return m_scratch; }
    const Sandbox &sandbox() const { return m_sandbox; }
    qint64 pid() const;
    /// The last ~60 lines of the worker's stderr.
    QString logTail() const { return m_log.join(QLatin1Char('\n')); }
    /// "killed by signal 11 (SIGSEGV)" / "exited with code 3"; empty while running.
    QString exitDescription() const;
    /// Seconds since start() (start-up included).
    double ageSeconds() const { return m_age.isValid() ? m_age.elapsed() / 1000.0 : 0.0; }

    static constexpr int LogLines = 60;

Q_SIGNALS:
    void ready();
    void event(const QJsonObject &ev);
    void logLine(const QString &line);
    void finished();

private:
    void onStdout();
    void onStderr();
    void onFinished(int code, QProcess::ExitStatus status);
    void appendLog(const QString &line);

    QProcess m_proc;
    QString m_python;
    QString m_scratch;
    QString m_visibleDevices;
    Sandbox m_sandbox;
    QByteArray m_outBuf;
    QByteArray m_errBuf;
    QStringList m_log;
    QJsonObject m_readyInfo;
    QByteArray m_key; ///< raw bytes of the request's key; empty before the request
    int m_refused = 0;
    QElapsedTimer m_age;
    qint64 m_pgid = 0;
    bool m_ready = false;
    bool m_exited = false;
    int m_exitCode = 0;
    int m_exitSignal = 0;
};

} // namespace kwb
