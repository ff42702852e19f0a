// SPDX-License-Identifier: MIT
#pragma once

#include "eval/evalrequest.h"

#include <QJsonObject>
#include <QString>

namespace kwb {

/// The host's last line of defence: checks every field of a worker's result object before it becomes
/// an EvalResult. Returns an empty string when the result is acceptable, else why it is refused (a
/// status the protocol does not have, an "ok" with fewer trials or timed rounds than asked for,
/// impossible latencies, verdicts of unknown shape, ...).
QString refuseResult(const QJsonObject &result, const EvalRequest &request, bool baselineOnly);

} // namespace kwb
