// SPDX-License-Identifier: MIT
#include "suite/suite.h"

#include "model/run.h"
#include "tasks/taskindex.h"

#include <QDir>
#include <QFileInfo>
#include <QSet>

#include <algorithm>

namespace kwb::suite {

QString toName(EntryState s)
{
    switch (s) {
    case EntryState::Pending: return QStringLiteral("pending");
    case EntryState::Running: return QStringLiteral("running");
    case EntryState::Finished: return QStringLiteral("finished");
    case EntryState::Failed: return QStringLiteral("failed");
    case EntryState::Stopped: return QStringLiteral("stopped");
    }
    return QStringLiteral("pending");
}

EntryState entryStateFromString(const QString &s)
{
    for (auto v : {EntryState::Pending, EntryState::Running, EntryState::Finished, EntryState::Failed, EntryState::Stopped})
        if (toName(v) == s)
            return v;
    return EntryState::Pending;
}

void summarizeRun(const Run &run, SuiteEntry &entry)
{
    const QString bestId = run.info.bestCandidateId.isEmpty() && run.best() ? run.best()->id : run.info.bestCandidateId;
    const Candidate *best = run.candidate(bestId);
    entry.bestCandidateId = best ? best->id : QString();
    entry.correct = best && best->isCorrect();
    entry.speedupVsEager = entry.correct ? best->eval->speedupVsEager() : std::numeric_limits<double>::quiet_NaN();
    entry.speedupVsGraph = entry.correct ? best->eval->speedupVsGraph() : std::numeric_limits<double>::quiet_NaN();
    entry.candidates = 0;
    QStringList flags;
    for (const auto &c : run.candidates) {
        if (c.kind != CandidateKind::Baseline)
            ++entry.candidates;
        for (const auto &v : c.verdicts)
            if (v.isIntegrityViolation() && !flags.contains(v.detector))
                flags << v.detector;
        if (c.eval)
            for (const auto &v : c.eval->runtimeChecks)
                if (v.isIntegrityViolation() && !flags.contains(v.detector))
                    flags << v.detector;
    }
    flags.sort();
    entry.integrityFlags = flags;
    entry.tokens = 0;
    entry.costUsd = 0;
    for (const auto &x : run.exchanges) {
        entry.tokens += x.inputTokens + x.outputTokens;
        entry.costUsd += x.costUsd;
    }
}

SuiteTotals totals(const Suite &suite)
{
    SuiteTotals t;
    double logE = 0, logG = 0;
    int nE = 0, nG = 0;
    for (const auto &e : suite.entries) {
        ++t.tasks;
        switch (e.state) {
        case EntryState::Pending:
        case EntryState::Stopped: ++t.pending; break;
        case EntryState::Running: ++t.running; break;
        case EntryState::Finished: ++t.done; break;
        case EntryState::Failed: ++t.done, ++t.failed; break;
        }
        if (e.correct) {
            ++t.correct;
            if (std::isfinite(e.speedupVsEager) && e.speedupVsEager > 0) {
                logE += std::log(e.speedupVsEager), ++nE;
                t.fasterThanEager += e.speedupVsEager > 1.0;
            }
            if (std::isfinite(e.speedupVsGraph) && e.speedupVsGraph > 0) {
                logG += std::log(e.speedupVsGraph), ++nG;
                t.fasterThanGraph += e.speedupVsGraph > 1.0;
            }
        }
        t.flagged += e.flagged();
        t.tokens += e.tokens;
        t.costUsd += e.costUsd;
        t.wallSeconds += e.wallSeconds;
    }
    if (nE)
        t.geomeanVsEager = std::exp(logE / nE);
    if (nG)
        t.geomeanVsGraph = std::exp(logG / nG);
    return t;
}

QList<SuiteEntry> sortedFailingFirst(QList<SuiteEntry> entries)
{
    std::stable_sort(entries.begin(), entries.end(), [](const SuiteEntry &a, const SuiteEntry &b) {
        if (a.failing() != b.failing())
            return a.failing();
        if (a.flagged() != b.flagged())
            return a.flagged();
        return a.taskName < b.taskName;
    });
    return entries;
}

QStringList collectTasks(const QStringList &args, QString *error, QStringList *skipped)
{
    QStringList out;
    QSet<QString> seen;
    auto add = [&](const QString &path) {
        const QString abs = QFileInfo(path).absoluteFilePath();
        if (!seen.contains(abs)) {
            seen.insert(abs);
            out << abs;
        }
    };
    for (const auto &arg : args) {
        if (QFileInfo(arg).isDir()) {
            TaskIndex index(false);
            index.addDirectory(arg);
            const auto tasks = index.tasks();
            if (tasks.isEmpty()) {
                if (error)
                    *error = QStringLiteral("no task files in folder '%1'").arg(arg);
                return {};
            }
            for (const auto &t : tasks)
                add(t.path);
            if (skipped)
                *skipped << index.problems();
            continue;
        }
        QString e;
        const auto task = TaskIndex::resolve(arg, &e);
        if (!task) {
            if (error)
                *error = e;
            return {};
        }
        add(task->path);
    }
    if (out.isEmpty() && error)
        *error = QStringLiteral("no tasks given");
    return out;
}

} // namespace kwb::suite
