// SPDX-License-Identifier: MIT
#pragma once

// The run store: a run is a directory (format in core/store/FORMAT.md) whose append-only event log
// (events.jsonl) is the source of truth, with run.json as a periodically rewritten snapshot.
// Nothing here throws; failures come back as false / std::nullopt plus a clear error text.

#include "model/run.h"

#include <QByteArray>
#include <QElapsedTimer>
#include <QJsonObject>
#include <QLockFile>
#include <QString>
#include <QStringList>

#include <memory>
#include <optional>

namespace kwb::store {

/// The newest run-directory schema this build reads and the one it writes.
inline constexpr int kSchemaVersion = 1;

/// How much of a run openRun reads.
struct OpenOptions {
    /// Also read each LLM exchange's messages, response and reasoning from llm/<xid>.json (one
    /// file per call: ~10x slower on big runs). By default exchanges carry only their header
    /// (call type, provider, tokens, cost, times, error, candidate); a viewer calls readExchange()
    /// for the one it shows. RunWriter::run() always has the bodies.
    bool exchangeBodies = false;
};

/// Opens a run directory (also one still being written, or one killed mid-run). Returns nullopt
/// with a clear `error` for: not a directory, not a run, a newer schema, damaged JSON (file and
/// line). A truncated last event line is not an error: it is ignored and described in `warnings`.
std::optional<Run> openRun(const QString &dir, QString *error = nullptr, QStringList *warnings = nullptr,
                           OpenOptions options = {});

/// One LLM exchange, whole (from llm/<id>.json); nullopt with `error` when missing or damaged.
std::optional<LlmExchange> readExchange(const QString &runDir, const QString &id, QString *error = nullptr);

/// The candidate's kernel source (c.codeFile, relative to runDir); empty when missing.
QString readCode(const QString &runDir, const Candidate &c);

/// True when `dir` looks like a run directory (has events.jsonl or run.json); cheap, parses nothing.
bool isRunDirectory(const QString &dir);

/// Absolute paths of the run directories directly under `runsDir`, newest first.
QStringList listRuns(const QString &runsDir);

/// The whole run as JSON, in run.json's shape ({schema_version, info, candidates, exchanges, gates});
/// what `kwb show --json` prints. run.json itself is written without the exchange bodies.
QJsonObject runToJson(const Run &run, bool exchangeBodies = true);

/// The directory name a new run gets, before any uniqueness suffix:
/// "<yyyyMMdd-HHmmss>_<task>_<provider>" (local time; task and provider made file-name safe).
QString runDirectoryName(const QDateTime &created, const QString &task, const QString &provider);

/// The one live writer of a run. Each call is durable when it returns (its event is written and
/// fsync'd; files it refers to are written atomically before it). Not thread-safe: use it from one
/// thread. run.json is rewritten at most every ~2 s (less often when it is big: at most ~5% of the
/// time goes to it) and when the writer is destroyed.
class RunWriter {
public:
    /// Creates runsDir/<name>/ (unique even for two runs started in the same second: "-2", "-3" ...)
    /// and records info (its id and createdAt are filled in when empty).
    static std::unique_ptr<RunWriter> create(const QString &runsDir, const RunInfo &info,
                                             QString *error = nullptr);
    /// Continues an interrupted run: everything completed is kept, a torn last event line is cut.
    static std::unique_ptr<RunWriter> resume(const QString &runDir, QString *error = nullptr);
    ~RunWriter();
    RunWriter(const RunWriter &) = delete;
    RunWriter &operator=(const RunWriter &) = delete;

    const Run &run() const { return m_run; }
    QString directory() const { return m_dir; }
    /// Warnings met when resuming (e.g. a torn last line that was cut).
    QStringList warnings() const { return m_warnings; }

    QString nextCandidateId(); ///< "c0001", "c0002", ... never reused, also after resume
    QString nextExchangeId(); ///< "x0001", ...

    /// Writes the code to kernels/<id>.py (sets codeFile when empty) and records the candidate.
    bool addCandidate(const Candidate &c, const QString &code);
    /// Replaces the recorded candidate with the same id (status, eval, verdicts, note, override);
    /// an eval is also written to evals/<id>.json.
    bool updateCandidate(const Candidate &c);
    /// Writes the exchange whole to llm/<id>.json and records its header (no bodies) as an event.
    bool addExchange(const LlmExchange &x);
    bool updateExchange(const LlmExchange &x);
    bool addGate(const GateRecord &g);
    bool updateInfo(const RunInfo &info); ///< schemaVersion and id are kept as recorded
    bool appendLog(const QString &line); ///< console.log (flushed, not fsync'd: it is not state)
    /// Copies the prompt templates the run uses (files, recursively) into prompts/.
    bool snapshotPrompts(const QString &promptsDir);
    /// Writes an extra artefact atomically; relativePath must stay inside the run directory.
    bool writeFile(const QString &relativePath, const QByteArray &data);
    /// Rewrites run.json now (normally throttled).
    bool writeSnapshot();

    QString lastError() const { return m_lastError; }

private:
    RunWriter() = default;
    bool openEventLog();
    bool appendEvent(const QString &type, const QJsonObject &data);
    bool fail(const QString &message);
    void maybeSnapshot();

    QString m_dir;
    Run m_run;
    std::unique_ptr<QLockFile> m_lock; ///< writer.lock: one live writer per run, also across processes
    int m_eventsFd = -1;
    qint64 m_seq = 0; ///< last written event's seq
    qint64 m_snapshotSeq = -1; ///< seq the current run.json reflects
    int m_nextCandidate = 1;
    int m_nextExchange = 1;
    QElapsedTimer m_sinceSnapshot;
    qint64 m_snapshotCostMs = 0; ///< how long the last run.json took: big runs snapshot less often
    QString m_lastError;
    QStringList m_warnings;
};

} // namespace kwb::store
