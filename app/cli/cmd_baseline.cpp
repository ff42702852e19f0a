// SPDX-License-Identifier: MIT
// Placeholder until its owner writes it.
#include "commands.h"

int kwb::cli::runBaseline(const QStringList &)
{
    err() << "kwb baseline: not implemented yet\n";
    return Failure;
}
