// SPDX-License-Identifier: MIT
// Placeholder until its owner writes it.
#include "commands.h"

int kwb::cli::runTasks(const QStringList &)
{
    err() << "kwb tasks: not implemented yet\n";
    return Failure;
}
