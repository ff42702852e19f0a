// SPDX-License-Identifier: MIT
// Placeholder until its owner writes it.
#include "commands.h"

int kwb::cli::runRun(const QStringList &)
{
    err() << "kwb run: not implemented yet\n";
    return Failure;
}
