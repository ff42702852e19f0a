// SPDX-License-Identifier: MIT
#pragma once

// Shipped replay cassettes (resources/cassettes/) and recording a run as a cassette.

#include "model/run.h"

#include <QString>

namespace kwb::pipeline {

/// resources/cassettes/<taskName>.json when it exists, else empty.
QString shippedCassette(const QString &taskName);

/// Writes a cassette (format of llm::saveCassette) from `sourceCassette` (when given) and the run:
/// every call the run made gets the prompt and hash this run rendered (matched by call type and
/// order), so replaying with the current templates on this machine matches strictly; recorded
/// answers the run did not ask for are kept unchanged; calls with no recorded counterpart (a live
/// provider's) are added. The source's metadata is kept, plus "recorded_from", "prompts_rehashed".
bool recordCassette(const Run &run, const QString &sourceCassette, const QString &outFile, QString *error = nullptr);

} // namespace kwb::pipeline
