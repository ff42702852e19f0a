// SPDX-License-Identifier: MIT
#include "pipeline/stagepolicy.h"

#include "detect/detectorrunner.h"
#include "detect/policy.h"

#include <QPointer>

namespace kwb::pipeline {

StagePlan planStagesFor(const QList<Verdict> &verdicts)
{
    const detect::StagePlan d = detect::planStages(verdicts);
    StagePlan p;
    p.grid = d.grid;
    p.block = d.block;
    p.memory = d.memory;
    p.rule = d.rule;
    p.explanation = d.explanation;
    p.promptNotes = d.promptNotes;
    return p;
}

DetectorHook defaultDetectorHook()
{
    return [](const QString &taskFile, const QString &candidateFile,
              std::function<void(const QList<Verdict> &, const QString &)> done) {
        // One runner per call; it deletes itself when it has answered.
        auto *runner = new detect::DetectorRunner;
        QObject::connect(runner, &detect::DetectorRunner::finished, runner, [runner, done](const QList<Verdict> &v) {
            runner->deleteLater();
            done(v, {});
        });
        QObject::connect(runner, &detect::DetectorRunner::failed, runner, [runner, done](const QString &error) {
            runner->deleteLater();
            done({}, error);
        });
        runner->start(taskFile, candidateFile);
    };
}

} // namespace kwb::pipeline
