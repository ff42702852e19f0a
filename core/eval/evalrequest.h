// SPDX-License-Identifier: MIT
#pragma once

#include <QString>

namespace kwb {

/// The timed rounds a worker may run when none were asked for (EvalRequest::repeat 0): on a GPU AutoRoundsGpu, on
/// a CPU AutoRoundsMin to AutoRoundsMax.
inline constexpr int AutoRoundsGpu = 20;
inline constexpr int AutoRoundsMin = 15;
inline constexpr int AutoRoundsMax = 45;

/// What to evaluate and how. Field names follow the worker protocol (core/eval/PROTOCOL.md).
struct EvalRequest {
    QString taskFile; ///< the KernelBench task (.py), absolute or relative path
    QString candidateFile; ///< the candidate (.py); copied into a fresh scratch dir before running
    QString device = QStringLiteral("auto"); ///< "auto", "cpu" or "cuda"
    int trials = 5; ///< correctness trials, fresh inputs each
    int warmup = 3;
    /// Timed rounds; 0 (the default): the judge's own count, 20 on a GPU and on a CPU AutoRoundsMin to AutoRoundsMax
    /// by the task's speed (kwb_worker/judge.py cpu_rounds: a tiny task's figure needs more rounds there).
    int repeat = 0;
    double atol = 1e-4;
    double rtol = 1e-4;
    int seed = 42;
    bool baselines = true; ///< time the eager reference next to the candidate
    bool graphBaseline = true; ///< also the CUDA-graph reference (GPU only)
    bool profile = false; ///< Nsight Compute metrics
    bool integrity = true; ///< run-time integrity checks
    double plausibleSpeedup = 10.0; ///< speedups above this get an integrity look
    int compileTimeoutSec = 300; ///< limit from the request until the worker's `running` phase
    int runTimeoutSec = 600; ///< limit from `running` until the result
    QString python; ///< interpreter; empty: env::pythonInterpreter()
};

} // namespace kwb
