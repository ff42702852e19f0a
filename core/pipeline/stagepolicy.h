// SPDX-License-Identifier: MIT
#pragma once

// The pipeline's view of the detectors: the stage plan for the best candidate's verdicts and the
// default way to get verdicts (the detectors' runner in core/detect).

#include "model/verdict.h"
#include "pipeline/pipeline.h"

#include <QList>
#include <QString>
#include <QStringList>

namespace kwb::pipeline {

/// Which of the three tuning stages run, and why (mirrors core/detect's policy).
struct StagePlan {
    bool grid = true, block = true, memory = true;
    QString rule;
    QString explanation;
    QStringList promptNotes;
};

/// The detectors' policy applied to `verdicts`.
StagePlan planStagesFor(const QList<Verdict> &verdicts);

/// Runs the static detectors through core/detect's runner (the worker's Python).
DetectorHook defaultDetectorHook();

} // namespace kwb::pipeline
