// SPDX-License-Identifier: MIT
#pragma once

#include <QString>
#include <QStringList>

namespace kwb {

/// How a worker is wrapped. On Linux with a working `bwrap`: read-only /, a writable scratch dir,
/// a private /tmp and /dev/shm, /dev bound (GPU), no network, its own PID namespace, dies with its parent.
/// Otherwise the worker runs unsandboxed and note() says why. KWB_SANDBOX=off disables it.
class Sandbox
{
public:
    /// Probes once per process (cached): is bwrap on PATH and does `bwrap ... true` work?
    static Sandbox detect();
    /// A sandbox that wraps nothing, with `note` as its explanation.
    static Sandbox disabled(const QString &note);

    bool enabled() const { return m_enabled; }
    QString note() const { return m_note; }
    QString bwrapPath() const { return m_bwrap; }

    /// The program and arguments that run `program args` in the sandbox with `scratchDir` writable
    /// (both returned unchanged when disabled).
    void wrap(QString *program, QStringList *args, const QString &scratchDir) const;

private:
    bool m_enabled = false;
    QString m_note;
    QString m_bwrap;
};

} // namespace kwb
