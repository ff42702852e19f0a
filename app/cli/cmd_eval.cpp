// SPDX-License-Identifier: MIT
// Placeholder until its owner writes it.
#include "commands.h"

int kwb::cli::runEval(const QStringList &)
{
    err() << "kwb eval: not implemented yet\n";
    return Failure;
}
