// SPDX-License-Identifier: MIT
#pragma once

// Shipped replay cassettes (resources/cassettes/) and recording a run as a cassette.

#include "model/run.h"

#include <QString>

namespace kwb::pipeline {

/// resources/cassettes/<taskName>.json when it exists, else empty.
QString shippedCassette(const QString &taskName);

/// Writes the run's successful exchanges as a cassette (format of llm::saveCassette): the prompts
/// and their hashes are the ones this run rendered, so replaying the cassette with the current
/// templates matches strictly. The metadata of `sourceCassette` (when given) is kept, plus
/// "recorded_from" and "prompts_rehashed_at".
bool recordCassette(const Run &run, const QString &sourceCassette, const QString &outFile, QString *error = nullptr);

} // namespace kwb::pipeline
