// SPDX-License-Identifier: MIT
#include "detectorrunner.h"

#include "env/locations.h"
#include "model/json.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTimer>

namespace kwb::detect {

DetectorRunner::DetectorRunner(QObject *parent)
    : QObject(parent)
{
}

DetectorRunner::~DetectorRunner()
{
    cancel();
}

QStringList DetectorRunner::commandLine(const QString &taskFile, const QString &candidateFile) const
{
    const QString python = m_python.isEmpty() ? env::pythonInterpreter() : m_python;
    const QString worker = env::workerScript();
    const QString task = QFileInfo(taskFile).absoluteFilePath();
    const QString cand = QFileInfo(candidateFile).absoluteFilePath();
    const QString sm = QString::number(m_smCount);
    // -I: the user's PYTHONPATH, site-packages and current directory never shadow the worker.
    if (QFileInfo::exists(worker))
        return {python, QStringLiteral("-I"), worker, QStringLiteral("detect"), task, cand,
                QStringLiteral("--sm-count"), sm, QStringLiteral("--json")};
    const QString direct = QFileInfo(worker).absolutePath() + QStringLiteral("/kwb_worker/detect/__main__.py");
    return {python, QStringLiteral("-I"), direct, task, cand, QStringLiteral("--sm-count"), sm};
}

QProcess *DetectorRunner::makeProcess(const QString &taskFile, const QString &candidateFile)
{
    auto *p = new QProcess(this);
    const QStringList cmd = commandLine(taskFile, candidateFile);
    p->setProgram(cmd.first());
    p->setArguments(cmd.mid(1));
    // The detectors never run the candidate, but they are still its first reader: no secrets.
    p->setProcessEnvironment(env::scrubbedEnvironment());
    return p;
}

DetectResult DetectorRunner::parseOutput(const QByteArray &stdoutData)
{
    DetectResult r;
    // The last line that parses wins: a library's chatter before it must not break the run.
    QList<QByteArray> candidates{stdoutData.trimmed()};
    const QList<QByteArray> lines = stdoutData.split('\n');
    for (auto it = lines.crbegin(); it != lines.crend(); ++it)
        if (!it->trimmed().isEmpty())
            candidates << it->trimmed();
    for (const auto &text : candidates) {
        QJsonParseError err{};
        const QJsonDocument doc = QJsonDocument::fromJson(text, &err);
        if (err.error != QJsonParseError::NoError)
            continue;
        if (doc.isArray()) {
            r.verdicts = json::verdictsFromJson(doc.array());
            r.ok = true;
            return r;
        }
        if (doc.isObject() && doc.object().value(QLatin1String("verdicts")).isArray()) {
            r.verdicts = json::verdictsFromJson(doc.object().value(QLatin1String("verdicts")).toArray());
            r.ok = true;
            return r;
        }
    }
    r.error = QStringLiteral("the detectors printed no verdict list");
    return r;
}

DetectResult DetectorRunner::collect(QProcess *p, QProcess::ExitStatus status, int code) const
{
    const QByteArray out = p->readAllStandardOutput();
    const QString log = QString::fromUtf8(p->readAllStandardError()).trimmed().right(2000);
    if (status != QProcess::NormalExit || code != 0) {
        DetectResult r;
        r.error = QStringLiteral("detectors failed (%1 %2, %3)%4")
                      .arg(status == QProcess::NormalExit ? QStringLiteral("exit code") : QStringLiteral("crashed"))
                      .arg(code)
                      .arg(p->program(), log.isEmpty() ? QString() : QStringLiteral(": ") + log);
        return r;
    }
    DetectResult r = parseOutput(out);
    if (!r.ok && !log.isEmpty())
        r.error += QStringLiteral(": ") + log;
    return r;
}

void DetectorRunner::start(const QString &taskFile, const QString &candidateFile)
{
    cancel();
    QProcess *p = makeProcess(taskFile, candidateFile);
    m_process = p;
    auto *timer = new QTimer(p);
    timer->setSingleShot(true);
    connect(timer, &QTimer::timeout, p, [this, p] {
        p->disconnect(this);
        p->kill();
        p->deleteLater();
        emit failed(QStringLiteral("detectors timed out after %1 s").arg(m_timeoutMs / 1000));
    });
    connect(p, &QProcess::errorOccurred, this, [this, p](QProcess::ProcessError e) {
        if (e != QProcess::FailedToStart)
            return; // crashes arrive through finished()
        p->disconnect(this);
        p->deleteLater();
        emit failed(QStringLiteral("cannot start %1: %2").arg(p->program(), p->errorString()));
    });
    connect(p, &QProcess::finished, this, [this, p](int code, QProcess::ExitStatus status) {
        const DetectResult r = collect(p, status, code);
        p->disconnect(this);
        p->deleteLater();
        if (r.ok)
            emit finished(r.verdicts);
        else
            emit failed(r.error);
    });
    timer->start(m_timeoutMs);
    p->start();
}

void DetectorRunner::cancel()
{
    if (m_process) {
        m_process->disconnect(this);
        m_process->kill();
        m_process->waitForFinished(1000);
        m_process->deleteLater();
        m_process = nullptr;
    }
}

bool DetectorRunner::isRunning() const
{
    return m_process && m_process->state() != QProcess::NotRunning;
}

DetectResult DetectorRunner::runBlocking(const QString &taskFile, const QString &candidateFile)
{
    QProcess *p = makeProcess(taskFile, candidateFile);
    p->start();
    DetectResult r;
    if (!p->waitForStarted(m_timeoutMs)) {
        r.error = QStringLiteral("cannot start %1: %2").arg(p->program(), p->errorString());
    } else if (!p->waitForFinished(m_timeoutMs)) {
        p->kill();
        p->waitForFinished(1000);
        r.error = QStringLiteral("detectors timed out after %1 s").arg(m_timeoutMs / 1000);
    } else {
        r = collect(p, p->exitStatus(), p->exitCode());
    }
    delete p;
    return r;
}

} // namespace kwb::detect
