// SPDX-License-Identifier: MIT
#pragma once

#include "model/verdict.h"

#include <QList>
#include <QObject>
#include <QPointer>
#include <QProcess>
#include <QString>
#include <QStringList>

namespace kwb::detect {

/// What a detector run gave: the verdicts, or why there are none.
struct DetectResult {
    bool ok = false;
    QList<Verdict> verdicts;
    QString error; ///< set when !ok: Python missing, crashed, printed no JSON ...
};

/// Runs the static detectors (Python, `kwb_worker.detect`) on one candidate in a separate
/// process: `PYTHON -I <worker>/kwb_worker.py detect TASK CANDIDATE --json`, or, where the worker
/// script is absent, `PYTHON -I <worker>/kwb_worker/detect/__main__.py TASK CANDIDATE`.
/// The candidate is parsed there, never imported. Asynchronous (signals); `runBlocking` is the
/// helper for the CLI and tests.
class DetectorRunner : public QObject {
    Q_OBJECT
public:
    explicit DetectorRunner(QObject *parent = nullptr);
    ~DetectorRunner() override;

    void setPython(const QString &python) { m_python = python; } ///< default env::pythonInterpreter()
    void setSmCount(int smCount) { m_smCount = smCount; } ///< the target GPU's SMs (default 132, H100)
    void setTimeoutMs(int ms) { m_timeoutMs = ms; }

    /// Starts a run; finished() or failed() follows once. A run already going is cancelled.
    void start(const QString &taskFile, const QString &candidateFile);
    void cancel();
    bool isRunning() const;

    /// Runs to completion in the calling thread (CLI, tests).
    DetectResult runBlocking(const QString &taskFile, const QString &candidateFile);

    /// The program and arguments a run uses (for logs and `kwb detect --verbose`).
    QStringList commandLine(const QString &taskFile, const QString &candidateFile) const;

    /// Parses the detectors' stdout: a JSON list of verdicts, or an object with "verdicts".
    static DetectResult parseOutput(const QByteArray &stdoutData);

signals:
    void finished(const QList<kwb::Verdict> &verdicts);
    void failed(const QString &message);

private:
    QProcess *makeProcess(const QString &taskFile, const QString &candidateFile);
    DetectResult collect(QProcess *p, QProcess::ExitStatus status, int code) const;

    QString m_python;
    int m_smCount = 132;
    int m_timeoutMs = 60000;
    QPointer<QProcess> m_process;
};

} // namespace kwb::detect
