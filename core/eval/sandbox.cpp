// SPDX-License-Identifier: MIT
#include "eval/sandbox.h"

#include "env/locations.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QStandardPaths>

#include <mutex>

#include <unistd.h>

namespace kwb {

namespace {

/// Folders under /tmp that a worker reads: its private /tmp would hide them. A checkout (the worker
/// script, the shipped tasks) or a virtual environment under /tmp is common, in CI above all.
QStringList readOnlyUnderTmp(const QString &program)
{
    const QString tmp = QFileInfo(QStringLiteral("/tmp")).canonicalFilePath();
    QStringList dirs;
    auto add = [&](const QString &path) {
        const QString c = QFileInfo(path).canonicalFilePath();
        if (!c.isEmpty() && c.startsWith(tmp + QLatin1Char('/')) && !dirs.contains(c))
            dirs << c;
    };
    add(env::dataDir());
    if (!program.isEmpty()) {
        const QString exe = QFileInfo(program).isAbsolute() ? program : QStandardPaths::findExecutable(program);
        if (!exe.isEmpty()) {
            // The interpreter's prefix, before symlinks are followed: a venv's bin/python points
            // outside it, but its packages live beside bin/.
            const QDir bin = QFileInfo(exe).absoluteDir();
            add(QFileInfo(bin.absolutePath()).absolutePath());
            const QFileInfo real(QFileInfo(exe).canonicalFilePath()); // and the real interpreter's prefix
            add(QFileInfo(real.absolutePath()).absolutePath());
        }
    }
    return dirs;
}

/// The cgroup hierarchies the judge freezes the candidate's processes with (cgroup v2, and v1's
/// freezer), writable inside the sandbox. Only as root, and only when the candidate's process gets a
/// user of its own: it cannot write root's cgroup files, while a root candidate could freeze the host.
QStringList cgroupBinds()
{
    QStringList a;
    const QString runnerUid = qEnvironmentVariable("KWB_RUNNER_UID");
    if (::geteuid() != 0 || runnerUid == QLatin1String("root") || runnerUid == QLatin1String("0"))
        return a;
    QFile mounts(QStringLiteral("/proc/self/mounts"));
    if (!mounts.open(QIODevice::ReadOnly))
        return a;
    bool v1 = false, v2 = false;
    for (const QByteArray &line : mounts.readAll().split('\n')) {
        const QList<QByteArray> f = line.split(' ');
        if (f.size() < 4)
            continue;
        const QString path = QString::fromUtf8(f.at(1));
        const bool isV2 = f.at(2) == "cgroup2" && !v2;
        const bool isV1 = f.at(2) == "cgroup" && f.at(3).split(',').contains("freezer") && !v1;
        if ((isV2 || isV1) && ::access(f.at(1).constData(), W_OK) == 0) {
            a << QStringLiteral("--bind") << path << path;
            (isV2 ? v2 : v1) = true;
        }
    }
    return a;
}

/// The common bwrap arguments; the probe uses the same ones so "probe works" means "workers work".
QStringList bwrapArgs(const QString &scratchDir, const QStringList &readOnly = {})
{
    QStringList a{
        QStringLiteral("--ro-bind"), QStringLiteral("/"), QStringLiteral("/"),
        // The GPU's device nodes (/dev/nvidia*) must stay reachable: bind the host's /dev.
        QStringLiteral("--dev-bind"), QStringLiteral("/dev"), QStringLiteral("/dev"),
        // ... but not the host's /dev/shm: a world-writable tmpfs where a candidate's files would
        // outlive its evaluation (state for the next one, host memory pinned for good).
        QStringLiteral("--perms"), QStringLiteral("1777"), QStringLiteral("--tmpfs"), QStringLiteral("/dev/shm"),
        QStringLiteral("--proc"), QStringLiteral("/proc"),
        QStringLiteral("--tmpfs"), QStringLiteral("/tmp"),
        QStringLiteral("--unshare-net"),
        // Own PID namespace: when the worker dies, the kernel kills everything it spawned, even a
        // grandchild that left the process group with setsid().
        QStringLiteral("--unshare-pid"),
        QStringLiteral("--unshare-ipc"),
        QStringLiteral("--die-with-parent"),
        QStringLiteral("--new-session"),
    };
    a << cgroupBinds();
    for (const QString &dir : readOnly)
        a << QStringLiteral("--ro-bind") << dir << dir;
    if (!scratchDir.isEmpty())
        a << QStringLiteral("--bind") << scratchDir << scratchDir << QStringLiteral("--chdir") << scratchDir;
    return a;
}

} // namespace

Sandbox Sandbox::detect()
{
    static Sandbox cached;
    static std::once_flag once;
    std::call_once(once, [] {
        Sandbox s;
        const QString setting = qEnvironmentVariable("KWB_SANDBOX").toLower();
        if (setting == QLatin1String("off") || setting == QLatin1String("0") || setting == QLatin1String("no")) {
            s.m_note = QStringLiteral("unsandboxed: disabled by KWB_SANDBOX=off");
            cached = s;
            return;
        }
        const QString bwrap = QStandardPaths::findExecutable(QStringLiteral("bwrap"));
        if (bwrap.isEmpty()) {
            s.m_note = QStringLiteral("unsandboxed: bubblewrap (bwrap) is not installed; the candidate can write "
                                      "anywhere the user can and reach the network");
            cached = s;
            return;
        }
        QProcess probe;
        QStringList args = bwrapArgs(QDir::tempPath());
        args << QStringLiteral("true");
        probe.start(bwrap, args);
        const bool done = probe.waitForFinished(10000);
        if (!done || probe.exitStatus() != QProcess::NormalExit || probe.exitCode() != 0) {
            if (!done)
                probe.kill();
            const QString why = QString::fromLocal8Bit(probe.readAllStandardError()).trimmed();
            s.m_note = QStringLiteral("unsandboxed: bubblewrap does not work here (%1)")
                           .arg(why.isEmpty() ? QStringLiteral("probe failed") : why.section(QLatin1Char('\n'), 0, 0));
            cached = s;
            return;
        }
        s.m_enabled = true;
        s.m_bwrap = bwrap;
        s.m_note = QStringLiteral("sandboxed (bubblewrap): read-only filesystem except the scratch dir, private "
                                  "/tmp, no network");
        cached = s;
    });
    return cached;
}

Sandbox Sandbox::disabled(const QString &note)
{
    Sandbox s;
    s.m_note = note;
    return s;
}

void Sandbox::wrap(QString *program, QStringList *args, const QString &scratchDir) const
{
    if (!m_enabled)
        return;
    QStringList a = bwrapArgs(scratchDir, readOnlyUnderTmp(*program));
    a << QStringLiteral("--") << *program << *args;
    *program = m_bwrap;
    *args = a;
}

} // namespace kwb
