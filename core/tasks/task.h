// SPDX-License-Identifier: MIT
#pragma once

#include <QString>

namespace kwb {

/// One KernelBench-format task file: a `Model`, `get_inputs()` and `get_init_inputs()`.
struct Task {
    QString name; ///< file stem, e.g. "39_GRU"
    QString path; ///< absolute path of the .py file
    int level = 0; ///< 1..3 from a "levelN" folder, 0 when unknown
    QString family; ///< gru, lstm, matmul, softmax, elementwise, other
    QString sourceHash; ///< sha256 (hex) of the file's bytes
    bool operator==(const Task &) const = default;
};

} // namespace kwb
