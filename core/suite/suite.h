// SPDX-License-Identifier: MIT
#pragma once

// A suite: many tasks, one run each, in one directory (suite.json + runs/). Plain value types.

#include <QDateTime>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include <cmath>
#include <limits>
#include <optional>

namespace kwb {
struct Run;
}

namespace kwb::suite {

enum class EntryState {
    Pending, ///< not started (or interrupted before its run directory existed)
    Running,
    Finished, ///< the run ended normally (its best may still be wrong or missing)
    Failed, ///< the run could not start, failed, or passed its time limit
    Stopped, ///< the run was stopped by the user; resumable
};
QString toName(EntryState s);
EntryState entryStateFromString(const QString &s);

/// One task of a suite and how its run stands.
struct SuiteEntry {
    QString taskFile; ///< absolute path
    QString taskName;
    int level = 0;
    QString runDir; ///< relative to the suite directory ("runs/<id>"); empty before the run starts
    EntryState state = EntryState::Pending;
    QString bestCandidateId;
    double speedupVsEager = std::numeric_limits<double>::quiet_NaN();
    double speedupVsGraph = std::numeric_limits<double>::quiet_NaN();
    bool correct = false; ///< the best candidate is correct
    QStringList integrityFlags; ///< detector ids of integrity violations found in the run (any candidate)
    int candidates = 0;
    qint64 tokens = 0;
    double costUsd = 0;
    double wallSeconds = 0;
    QString failureReason;
    int attempts = 0; ///< how many times the suite started (or resumed) this run
    bool operator==(const SuiteEntry &) const = default;

    bool done() const { return state == EntryState::Finished || state == EntryState::Failed; }
    /// Needs a look: failed, or finished without a correct best.
    bool failing() const { return state == EntryState::Failed || (state == EntryState::Finished && !correct); }
    bool flagged() const { return !integrityFlags.isEmpty(); }
};

/// A suite directory's index.
struct Suite {
    int schemaVersion = 1;
    QDateTime createdAt;
    QJsonObject settings; ///< what the suite was asked to do (SuiteSettings::toJson)
    QList<SuiteEntry> entries;
};

/// Counts for a progress line and the report's totals.
struct SuiteTotals {
    int tasks = 0, pending = 0, running = 0, done = 0, failed = 0;
    int correct = 0, fasterThanEager = 0, fasterThanGraph = 0, flagged = 0;
    double geomeanVsEager = std::numeric_limits<double>::quiet_NaN(); ///< over correct tasks
    double geomeanVsGraph = std::numeric_limits<double>::quiet_NaN();
    qint64 tokens = 0;
    double costUsd = 0;
    double wallSeconds = 0;
};
SuiteTotals totals(const Suite &suite);

/// Fills the result columns of `entry` (best, speedups, correctness, flags, counts, tokens, cost)
/// from a run as recorded; leaves task, state, run dir, wall time and failure reason alone.
void summarizeRun(const Run &run, SuiteEntry &entry);

/// Entries sorted for the final table: failing first, then flagged, then by task name.
QList<SuiteEntry> sortedFailingFirst(QList<SuiteEntry> entries);

// suite.json
QJsonObject toJson(const SuiteEntry &e);
SuiteEntry suiteEntryFromJson(const QJsonObject &o);
QJsonObject toJson(const Suite &s);
std::optional<Suite> suiteFromJson(const QJsonObject &o, QString *error = nullptr);

/// suite.json of a suite directory.
QString suiteFile(const QString &suiteDir);
bool isSuiteDirectory(const QString &dir);
/// Writes suite.json atomically (QSaveFile: a reader never sees half a file).
bool writeSuite(const QString &suiteDir, const Suite &suite, QString *error = nullptr);
std::optional<Suite> readSuite(const QString &suiteDir, QString *error = nullptr);

/// Task files named on a command line: files, task names of the shipped library, and folders
/// (scanned recursively; files that are not tasks are reported in `skipped`). Absolute paths,
/// duplicates removed, folder contents in the task index's order. Empty with `error` when an
/// argument names nothing.
QStringList collectTasks(const QStringList &args, QString *error = nullptr, QStringList *skipped = nullptr);

} // namespace kwb::suite
