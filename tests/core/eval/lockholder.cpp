// SPDX-License-Identifier: MIT
// Test helper: holds the GPU lock of `key` (under $XDG_CACHE_HOME) like a second copy of the
// application would, prints "held" and keeps it until stdin closes or a line arrives.
#include "eval/gpulock.h"

#include <QCoreApplication>
#include <QSocketNotifier>

#include <cstdio>
#include <unistd.h>

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const QString key = argc > 1 ? QString::fromLocal8Bit(argv[1]) : QStringLiteral("gpu0");
    kwb::GpuLock lock(key);
    QObject::connect(&lock, &kwb::GpuLock::acquired, [] {
        std::fputs("held\n", stdout);
        std::fflush(stdout);
    });
    lock.acquire();
    QSocketNotifier stdinNotifier(STDIN_FILENO, QSocketNotifier::Read);
    QObject::connect(&stdinNotifier, &QSocketNotifier::activated, &app, &QCoreApplication::quit);
    return app.exec();
}
