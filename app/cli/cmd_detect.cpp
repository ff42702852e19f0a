// SPDX-License-Identifier: MIT
// Placeholder until its owner writes it.
#include "commands.h"

int kwb::cli::runDetect(const QStringList &)
{
    err() << "kwb detect: not implemented yet\n";
    return Failure;
}
