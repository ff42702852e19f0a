// SPDX-License-Identifier: MIT
#include "eval/workerprocess.h"

#include "env/locations.h"

#include <QDir>
#include <QCryptographicHash>
#include <QJsonDocument>
#include <QMessageAuthenticationCode>

#include <csignal>
#include <cstring>
#include <sys/prctl.h>
#include <sys/types.h>
#include <unistd.h>

namespace kwb {

namespace {

bool constantTimeEqual(const QByteArray &a, const QByteArray &b)
{
    if (a.size() != b.size())
        return false;
    unsigned char diff = 0;
    for (qsizetype i = 0; i < a.size(); ++i)
        diff |= static_cast<unsigned char>(a[i] ^ b[i]);
    return diff == 0;
}

QString signalName(int sig)
{
    switch (sig) {
    case SIGSEGV: return QStringLiteral("SIGSEGV");
    case SIGABRT: return QStringLiteral("SIGABRT");
    case SIGKILL: return QStringLiteral("SIGKILL");
    case SIGBUS: return QStringLiteral("SIGBUS");
    case SIGFPE: return QStringLiteral("SIGFPE");
    case SIGILL: return QStringLiteral("SIGILL");
    case SIGTERM: return QStringLiteral("SIGTERM");
    case SIGINT: return QStringLiteral("SIGINT");
    case SIGPIPE: return QStringLiteral("SIGPIPE");
    case SIGTRAP: return QStringLiteral("SIGTRAP");
    default: return QString::fromLocal8Bit(strsignal(sig));
    }
}

} // namespace

WorkerProcess::WorkerProcess(const QString &python, const QString &scratchDir, const Sandbox &sandbox, QObject *parent)
    : QObject(parent)
    , m_python(python.isEmpty() ? env::pythonInterpreter() : python)
    , m_scratch(scratchDir)
    , m_sandbox(sandbox)
{
    // The child called setsid(): its pid is its process group's id.
    connect(&m_proc, &QProcess::started, this, [this] { m_pgid = m_proc.processId(); });
    connect(&m_proc, &QProcess::readyReadStandardOutput, this, &WorkerProcess::onStdout);
    connect(&m_proc, &QProcess::readyReadStandardError, this, &WorkerProcess::onStderr);
    connect(&m_proc, &QProcess::finished, this, &WorkerProcess::onFinished);
    connect(&m_proc, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart) {
            appendLog(QStringLiteral("kwb: cannot start %1: %2").arg(m_python, m_proc.errorString()));
            m_exited = true;
            m_exitCode = 127;
            Q_EMIT finished();
        }
    });
}

WorkerProcess::~WorkerProcess()
{
    kill();
    if (m_proc.state() != QProcess::NotRunning) {
        // SIGKILL was sent; reaping takes milliseconds. Disconnect so no signal reaches a dying object.
        m_proc.disconnect(this);
        m_proc.waitForFinished(2000);
    }
}

void WorkerProcess::start()
{
    QProcessEnvironment envir = env::scrubbedEnvironment();
    // Caches and HOME in the scratch dir: the candidate writes nowhere else, and a Triton or
    // load_inline cache of one candidate never serves another.
    // Packages installed with `pip install --user` live under the real HOME: keep them importable.
    if (!envir.contains(QStringLiteral("PYTHONUSERBASE")) && envir.contains(QStringLiteral("HOME")))
        envir.insert(QStringLiteral("PYTHONUSERBASE"), envir.value(QStringLiteral("HOME")) + QStringLiteral("/.local"));
    envir.insert(QStringLiteral("HOME"), m_scratch);
    envir.insert(QStringLiteral("TRITON_CACHE_DIR"), m_scratch + QStringLiteral("/.triton"));
    envir.insert(QStringLiteral("TORCH_EXTENSIONS_DIR"), m_scratch + QStringLiteral("/.torch_extensions"));
    envir.insert(QStringLiteral("XDG_CACHE_HOME"), m_scratch + QStringLiteral("/.cache"));
    envir.insert(QStringLiteral("TMPDIR"), m_scratch + QStringLiteral("/tmp"));
    envir.insert(QStringLiteral("PYTHONDONTWRITEBYTECODE"), QStringLiteral("1"));
    envir.insert(QStringLiteral("PYTHONUNBUFFERED"), QStringLiteral("1"));
    envir.insert(QStringLiteral("KWB_SANDBOXED"), m_sandbox.enabled() ? QStringLiteral("1") : QStringLiteral("0"));
    if (!m_visibleDevices.isEmpty())
        envir.insert(QStringLiteral("CUDA_VISIBLE_DEVICES"), m_visibleDevices);
    QDir().mkpath(m_scratch + QStringLiteral("/tmp"));
    m_proc.setProcessEnvironment(envir);
    m_proc.setWorkingDirectory(m_scratch);

    // New session = new process group whose id is the child's pid: kill(-pgid) reaches every
    // process the worker (or the candidate) starts, unless one calls setsid itself (bwrap's PID
    // namespace covers that case).
    // PR_SET_PDEATHSIG: the worker dies with the host even when the host is killed outright.
    m_proc.setChildProcessModifier([] {
        ::setsid();
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    });

    QString program = m_python;
    QStringList args{QStringLiteral("-u"), env::workerScript(), QStringLiteral("serve")};
    m_sandbox.wrap(&program, &args, m_scratch);
    m_age.start();
    m_proc.start(program, args);
}

bool WorkerProcess::send(const QJsonObject &request)
{
    if (m_proc.state() != QProcess::Running)
        return false;
    m_key = QByteArray::fromHex(request.value(QStringLiteral("key")).toString().toLatin1());
    QByteArray line = QJsonDocument(request).toJson(QJsonDocument::Compact);
    line.append('\n');
    return m_proc.write(line) == line.size();
}

void WorkerProcess::kill()
{
    if (m_pgid > 0)
        ::kill(-static_cast<pid_t>(m_pgid), SIGKILL);
    if (m_proc.state() != QProcess::NotRunning)
        m_proc.kill();
}

bool WorkerProcess::isRunning() const
{
    return m_proc.state() != QProcess::NotRunning;
}

qint64 WorkerProcess::pid() const
{
    return m_proc.processId();
}

QString WorkerProcess::exitDescription() const
{
    if (!m_exited)
        return {};
    if (m_exitSignal > 0)
        return QStringLiteral("killed by signal %1 (%2)").arg(m_exitSignal).arg(signalName(m_exitSignal));
    return QStringLiteral("exited with code %1").arg(m_exitCode);
}

void WorkerProcess::onStdout()
{
    m_outBuf += m_proc.readAllStandardOutput();
    qsizetype nl;
    while ((nl = m_outBuf.indexOf('\n')) >= 0) {
        const QByteArray line = m_outBuf.left(nl).trimmed();
        m_outBuf.remove(0, nl + 1);
        if (line.isEmpty())
            continue;
        QJsonParseError perr;
        const QJsonDocument doc = QJsonDocument::fromJson(line, &perr);
        if (!doc.isObject()) {
            // Not protocol: keep it in the log so a person can see what went wrong.
            appendLog(QStringLiteral("kwb: non-protocol output on stdout: ") + QString::fromUtf8(line.left(300)));
            continue;
        }
        QJsonObject ev = doc.object();
        if (!m_key.isEmpty()) {
            // After the request only the worker's signed lines count: nothing else that reaches this
            // pipe (a candidate that found it) can become an event.
            const QByteArray body = ev.value(QStringLiteral("signed")).toString().toUtf8();
            const QByteArray mac = ev.value(QStringLiteral("mac")).toString().toLatin1();
            const QByteArray expected =
                QMessageAuthenticationCode::hash(body, m_key, QCryptographicHash::Sha256).toHex();
            const QJsonDocument inner = QJsonDocument::fromJson(body);
            if (body.isEmpty() || mac.size() != expected.size() || !constantTimeEqual(mac, expected) || !inner.isObject()) {
                ++m_refused;
                appendLog(QStringLiteral("kwb: refused a protocol line that is not signed with this request's key: ")
                          + QString::fromUtf8(line.left(200)));
                continue;
            }
            ev = inner.object();
        }
        if (!m_ready && ev.value(QStringLiteral("event")).toString() == QLatin1String("ready")) {
            m_ready = true;
            m_readyInfo = ev;
            Q_EMIT ready();
            continue;
        }
        Q_EMIT event(ev);
    }
}

void WorkerProcess::onStderr()
{
    m_errBuf += m_proc.readAllStandardError();
    qsizetype nl;
    while ((nl = m_errBuf.indexOf('\n')) >= 0) {
        appendLog(QString::fromUtf8(m_errBuf.left(nl)));
        m_errBuf.remove(0, nl + 1);
    }
    // A runaway line without newline must not grow without bound.
    if (m_errBuf.size() > 64 * 1024) {
        appendLog(QString::fromUtf8(m_errBuf.left(4096)) + QStringLiteral(" …"));
        m_errBuf.clear();
    }
}

void WorkerProcess::appendLog(const QString &line)
{
    m_log << (line.size() > 2000 ? line.left(2000) + QStringLiteral(" …") : line);
    while (m_log.size() > LogLines)
        m_log.removeFirst();
    Q_EMIT logLine(line);
}

void WorkerProcess::onFinished(int code, QProcess::ExitStatus status)
{
    // Drain what is left (a result written just before exit).
    onStdout();
    onStderr();
    if (!m_errBuf.isEmpty()) {
        appendLog(QString::fromUtf8(m_errBuf));
        m_errBuf.clear();
    }
    m_exited = true;
    if (status == QProcess::CrashExit) {
        // QProcess does not tell which signal; with bwrap (its own PID namespace) the worker's
        // signal shows up as exit code 128 + N instead, handled below.
        m_exitSignal = code > 0 ? code : SIGKILL;
    } else {
        m_exitCode = code;
        if (m_sandbox.enabled() && code > 128 && code < 128 + 65)
            m_exitSignal = code - 128;
    }
    // Whatever the worker left behind in its group goes with it.
    if (m_pgid > 0)
        ::kill(-static_cast<pid_t>(m_pgid), SIGKILL);
    Q_EMIT finished();
}

} // namespace kwb
