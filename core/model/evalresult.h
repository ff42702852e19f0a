// SPDX-License-Identifier: MIT
#pragma once

#include "verdict.h"

#include <QList>
#include <QMap>
#include <QString>
#include <QtGlobal>

#include <cmath>
#include <limits>

namespace kwb {

/// Summary statistics of one series of timed trials, in milliseconds.
struct LatencyStats {
    double medianMs = std::numeric_limits<double>::quiet_NaN();
    double meanMs = std::numeric_limits<double>::quiet_NaN();
    double stdMs = std::numeric_limits<double>::quiet_NaN();
    double minMs = std::numeric_limits<double>::quiet_NaN();
    double maxMs = std::numeric_limits<double>::quiet_NaN();
    double cv = std::numeric_limits<double>::quiet_NaN(); ///< std / mean
    int samples = 0;
    bool isValid() const { return samples > 0 && std::isfinite(medianMs); }
    bool operator==(const LatencyStats &) const = default;
};

/// Why an evaluation ended the way it did. Every failure class has its own value.
enum class EvalStatus {
    Ok, ///< ran and matched the reference
    WrongResult, ///< ran, outputs differ beyond atol/rtol
    ShapeMismatch, ///< ran, outputs have another shape or dtype
    SyntaxError, ///< the candidate does not parse or import
    CompileError, ///< Triton / CUDA compilation failed
    RuntimeError, ///< a Python or CUDA error while running
    CompileTimeout, ///< loading/compiling exceeded its limit
    RunTimeout, ///< running exceeded its limit
    Crash, ///< the worker died (signal, illegal memory access, os._exit)
    OutOfMemory,
    NoGpu, ///< the candidate needs a CUDA GPU and there is none
    Cancelled,
    InternalError, ///< the worker or the protocol failed; not the candidate's fault
    HarnessOutOfMemory, ///< the evaluator itself (inputs, references, checks) did not fit the device
};

QString toName(EvalStatus s);
EvalStatus evalStatusFromString(const QString &s);

/// Everything one evaluation of a candidate (or a baseline) found out.
struct EvalResult {
    EvalStatus status = EvalStatus::InternalError;
    QString reason; ///< one line a person reads first
    QString logTail; ///< last lines of the worker's log
    QString device; ///< e.g. "cuda:0 NVIDIA H100 80GB HBM3" or "cpu"
    bool onGpu = false;
    QString torchVersion;

    // Correctness, against the strict-fp32 reference.
    int trials = 0; ///< correctness trials run
    int failingTrial = -1; ///< first trial that failed, -1 if none
    double maxAbsErr = std::numeric_limits<double>::quiet_NaN();
    double meanAbsErr = std::numeric_limits<double>::quiet_NaN();
    double maxAbsErrFp64 = std::numeric_limits<double>::quiet_NaN(); ///< against an fp64 reference
    double atol = 1e-4;
    double rtol = 1e-4;

    // Timing; baselines are timed interleaved with the candidate in the same worker.
    LatencyStats candidate;
    LatencyStats eager; ///< PyTorch eager reference
    LatencyStats graph; ///< the same eager call captured in a CUDA graph (GPU only)

    QList<Verdict> runtimeChecks; ///< integrity checks made while running (caching, aliasing, ...)
    /// Peak device memory (bytes) of the candidate's forward and of the reference's alone, measured
    /// over a correctness trial; -1 when not measured (CPU runs, or the run did not get that far).
    qint64 candidatePeakBytes = -1;
    qint64 referencePeakBytes = -1;
    QString memoryNote; ///< how the harness fitted the device (fp64 check chunked, sampled, on the CPU, ...)
    QMap<QString, double> profile; ///< Nsight Compute metrics, when profiled
    QString profileNote; ///< "not profiled: ..." when not
    bool sandboxed = false;
    QString sandboxNote;
    double wallSeconds = 0.0;

    bool runnable() const
    {
        return status == EvalStatus::Ok || status == EvalStatus::WrongResult || status == EvalStatus::ShapeMismatch;
    }
    bool correct() const { return status == EvalStatus::Ok; }
    /// baseline / candidate; NaN when either is missing.
    double speedupVsEager() const { return ratio(eager, candidate); }
    double speedupVsGraph() const { return ratio(graph, candidate); }

private:
    static double ratio(const LatencyStats &base, const LatencyStats &c)
    {
        return base.isValid() && c.isValid() && c.medianMs > 0 ? base.medianMs / c.medianMs
                                                               : std::numeric_limits<double>::quiet_NaN();
    }
};

} // namespace kwb
