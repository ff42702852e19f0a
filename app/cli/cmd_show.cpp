// SPDX-License-Identifier: MIT
// Placeholder until its owner writes it.
#include "commands.h"

int kwb::cli::runShow(const QStringList &)
{
    err() << "kwb show: not implemented yet\n";
    return Failure;
}
