// SPDX-License-Identifier: MIT
#pragma once

#include <QStringList>
#include <QTextStream>

// One function per `kwb` sub-command; each lives in its own cmd_*.cpp. `args` excludes the program
// and the command name. Exit codes are the ones below, so scripts can rely on them.
namespace kwb::cli {

enum ExitCode {
    Success = 0,
    Failure = 1, ///< the command ran; the answer is "no" (candidate wrong, run failed ...)
    UsageError = 2, ///< bad arguments
    InputError = 3, ///< a file is missing, unreadable or malformed
    EnvironmentError = 4, ///< the worker, Python, torch or the GPU is not usable
    Interrupted = 130,
};

QTextStream &out();
QTextStream &err();

int runTasks(const QStringList &args);
int runBaseline(const QStringList &args);
int runEval(const QStringList &args);
int runShow(const QStringList &args);
int runDetect(const QStringList &args);
int runRun(const QStringList &args);
int runSuite(const QStringList &args);

} // namespace kwb::cli
