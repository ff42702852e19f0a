// SPDX-License-Identifier: MIT
// kwb_write_fixture_run RUNS_DIR [standard|failing]: writes one of the UI tests' fixture runs with
// the store's RunWriter and prints its directory (the GUI screenshots open it as a failing run).
#include "fixturerun.h"

#include <QCoreApplication>

#include <cstdio>

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    if (args.size() < 2 || args.size() > 3) {
        std::fprintf(stderr, "usage: kwb_write_fixture_run RUNS_DIR [standard|failing]\n");
        return 2;
    }
    const QString kind = args.size() == 3 ? args.at(2) : QStringLiteral("failing");
    if (kind != QLatin1String("standard") && kind != QLatin1String("failing")) {
        std::fprintf(stderr, "kwb_write_fixture_run: unknown fixture '%s' (standard or failing)\n", qPrintable(kind));
        return 2;
    }
    const kwb::fixture::StandardRun run = kind == QLatin1String("standard") ? kwb::fixture::writeStandardRun(args.at(1))
                                                                           : kwb::fixture::writeFailingRun(args.at(1));
    std::printf("%s\n", qPrintable(run.dir));
    return 0;
}
