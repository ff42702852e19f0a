// SPDX-License-Identifier: MIT
#pragma once

#include "model/run.h"

#include <QString>

namespace kwb::pipeline {

/// The candidate tree as indented text, one line per candidate (id, kind, label, status, median ms,
/// speedup vs eager and vs CUDA graph), the best marked with '*'. For the CLI's final table.
QString formatRunSummary(const Run &run);

} // namespace kwb::pipeline
