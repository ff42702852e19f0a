// SPDX-License-Identifier: MIT
#pragma once

#include "candidate.h"
#include "llmexchange.h"

#include <QDateTime>
#include <QJsonObject>
#include <QList>
#include <QString>

namespace kwb {

/// A person's (or a script's) answer at a gate, as recorded in the run.
struct GateRecord {
    QString gate; ///< e.g. "before_llm:seed1", "after_eval:c0004"
    QString decision; ///< approve, edit_prompt, edit_code, reprompt, skip, use_as_base, stop, override
    QString reason;
    QString candidateId; ///< the candidate the decision concerns or created
    QDateTime at;
    bool operator==(const GateRecord &) const = default;
};

enum class RunState { Running, Waiting, Finished, Stopped, Failed };
QString toName(RunState s);
RunState runStateFromString(const QString &s);

/// The header of a run: what was asked and how it stands.
struct RunInfo {
    int schemaVersion = 1;
    QString id; ///< the directory name, e.g. "20261122-142000_39_GRU_replay"
    QString taskName;
    QString taskFile; ///< path of the task file as given
    QString taskHash; ///< sha256 of the task source
    QString provider;
    QString model;
    QDateTime createdAt;
    RunState state = RunState::Running;
    QString bestCandidateId;
    QJsonObject settings; ///< seeds, gate policy, tolerances, trials, device ... as chosen
    QString note;
};

/// A whole run in memory: plain data, filled by the run store or the pipeline.
struct Run {
    RunInfo info;
    QList<Candidate> candidates;
    QList<LlmExchange> exchanges;
    QList<GateRecord> gates;

    const Candidate *candidate(const QString &id) const;
    Candidate *candidate(const QString &id);
    const LlmExchange *exchange(const QString &id) const;
    QList<const Candidate *> children(const QString &parentId) const;
    /// The eligible candidate with the lowest median latency, or nullptr.
    const Candidate *best() const;
};

} // namespace kwb
