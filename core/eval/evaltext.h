// SPDX-License-Identifier: MIT
#pragma once

#include "model/evalresult.h"

#include <QString>

namespace kwb {

/// Plain-text views of an EvalResult for the CLI and logs.
namespace evaltext {

/// One line: "OK: <reason>" / "CRASH: <reason>".
QString statusLine(const EvalResult &r);
/// A small table (median, mean, std, min, max, CV per series) and the speedups.
QString timingTable(const EvalResult &r);
/// "cpu · torch 1.13.1 · sandboxed … · 2.3 s wall"
QString contextLine(const EvalResult &r);
/// Speedup as "1.23x", or "n/a".
QString speedup(double x);

} // namespace evaltext
} // namespace kwb
