// SPDX-License-Identifier: MIT
#pragma once
// Helpers shared by the evaluator tests: the real worker with /usr/bin/python3 (torch on CPU).

#include "eval/evalrequest.h"
#include "eval/evaluator.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRandomGenerator>
#include <QStringList>
#include <QTemporaryDir>
#include <QTest>

namespace kwbtest {

inline QString data(const QString &name)
{
    return QStringLiteral(KWB_TEST_DATA "/eval/") + name;
}

/// Environment every evaluator test needs: the source tree's worker, a private cache, a Python.
inline void setUpEnvironment(QTemporaryDir &cache)
{
    qputenv("KWB_DATA_DIR", KWB_SOURCE_DIR);
    qputenv("XDG_CACHE_HOME", cache.path().toUtf8());
    if (qEnvironmentVariableIsEmpty("KWB_PYTHON"))
        qputenv("KWB_PYTHON", "/usr/bin/python3");
}

inline bool workerPresent()
{
    return QFileInfo::exists(QStringLiteral(KWB_SOURCE_DIR "/core/eval/worker/kwb_worker.py"));
}

/// A small, fast request on the tiny ReLU task.
inline kwb::EvalRequest request(const QString &candidate)
{
    kwb::EvalRequest r;
    r.taskFile = data(QStringLiteral("tiny_relu.py"));
    r.candidateFile = candidate;
    r.device = QStringLiteral("cpu");
    r.trials = 2;
    r.warmup = 1;
    r.repeat = 3;
    r.compileTimeoutSec = 60;
    r.runTimeoutSec = 60;
    return r;
}

/// A unique token, e.g. to find a candidate's grandchild in /proc.
inline QString token()
{
    return QStringLiteral("kwbmark%1").arg(QRandomGenerator::global()->generate64(), 0, 16);
}

/// Copies a fixture into `dir` with placeholders replaced.
inline QString instantiate(const QTemporaryDir &dir, const QString &fixture,
                           const QList<QPair<QString, QString>> &replacements)
{
    QFile in(data(fixture));
    if (!in.open(QIODevice::ReadOnly))
        return {};
    QString text = QString::fromUtf8(in.readAll());
    for (const auto &[from, to] : replacements)
        text.replace(from, to);
    const QString path = dir.filePath(fixture);
    QFile out(path);
    if (!out.open(QIODevice::WriteOnly))
        return {};
    out.write(text.toUtf8());
    return path;
}

/// PIDs of live processes whose command line contains `needle` (zombies have an empty cmdline).
inline QList<int> processesWith(const QString &needle)
{
    QList<int> pids;
    const QStringList entries = QDir(QStringLiteral("/proc")).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    for (const QString &e : entries) {
        bool ok = false;
        const int pid = e.toInt(&ok);
        if (!ok)
            continue;
        QFile f(QStringLiteral("/proc/%1/cmdline").arg(pid));
        if (!f.open(QIODevice::ReadOnly))
            continue;
        if (f.readAll().contains(needle.toUtf8()))
            pids << pid;
    }
    return pids;
}

/// Collects a job's log lines (all of them, not only the tail).
struct LogCollector {
    QStringList lines;
    QMetaObject::Connection connection;
    explicit LogCollector(kwb::Evaluator &ev)
    {
        connection = QObject::connect(&ev, &kwb::Evaluator::logLine, &ev,
                                      [this](const QString &, const QString &line) { lines << line; });
    }
    ~LogCollector() { QObject::disconnect(connection); }
    bool contains(const QString &s) const
    {
        for (const QString &l : lines)
            if (l.contains(s))
                return true;
        return false;
    }
    QString joined() const { return lines.join(QLatin1Char('\n')); }
};

} // namespace kwbtest
