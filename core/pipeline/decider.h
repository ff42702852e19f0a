// SPDX-License-Identifier: MIT
#pragma once

#include "pipeline/gate.h"

#include <QList>
#include <QTextStream>

#include <functional>

namespace kwb::pipeline {

/// Answers the pipeline's gates. The pipeline calls decide() when a gate opens and waits (without
/// blocking its thread) until `reply` is called, now or later from the event loop. The GUI can
/// implement this interface, or leave the pipeline without a decider and answer its gateOpened()
/// signal with Pipeline::submitDecision().
class Decider
{
public:
    using Reply = std::function<void(const GateDecision &)>;
    virtual ~Decider() = default;
    virtual void decide(const GateRequest &request, Reply reply) = 0;
};

/// Approves everything (a fully automatic run when gates still open, e.g. on failures).
class AutomaticDecider : public Decider
{
public:
    void decide(const GateRequest &request, Reply reply) override;
};

/// Plays a list of decisions in order, one per gate, then approves (tests and scripts). An entry
/// may be bound to a gate point or to a step so it waits for the right gate: gates that do not
/// match the next entry are approved.
class ScriptedDecider : public Decider
{
public:
    struct Entry {
        GateDecision decision;
        std::optional<GatePoint> point; ///< only at this point (any when empty)
        QString step; ///< only at a gate whose step or gate name starts with this (any when empty)
        /// When set, makes the decision from the request (e.g. a base chosen among the candidates so far).
        std::function<GateDecision(const GateRequest &)> compute;
    };
    ScriptedDecider() = default;
    explicit ScriptedDecider(QList<Entry> entries) : m_entries(std::move(entries)) { }
    void add(const GateDecision &d, std::optional<GatePoint> point = std::nullopt, const QString &step = {})
    {
        m_entries.append({d, point, step, {}});
    }
    void add(std::function<GateDecision(const GateRequest &)> compute, std::optional<GatePoint> point,
             const QString &step)
    {
        m_entries.append({{}, point, step, std::move(compute)});
    }
    void decide(const GateRequest &request, Reply reply) override;
    /// Entries not used yet.
    int remaining() const { return int(m_entries.size()); }
    /// Every request seen, in order (tests check what the gates showed).
    const QList<GateRequest> &seen() const { return m_seen; }

private:
    QList<Entry> m_entries;
    QList<GateRequest> m_seen;
};

/// The CLI's --interactive: prints the gate and reads one answer line from a stream (stdin).
/// Reading blocks the caller; this is for the terminal front-end only, where nothing else waits.
/// Answers: a (approve), e (edit: the prompt or code from a file path that follows, or typed until
/// a line with a single "."), r TEXT (re-prompt), s (skip), b CID (use as base), o REASON (override),
/// q (stop); empty line approves.
class TerminalDecider : public Decider
{
public:
    TerminalDecider(QTextStream &in, QTextStream &out) : m_in(in), m_out(out) { }
    void decide(const GateRequest &request, Reply reply) override;
    /// Parses one answer line (and reads a multi-line body when the answer asks for it).
    GateDecision parse(const GateRequest &request, const QString &line);

private:
    QString readBlock();
    QTextStream &m_in;
    QTextStream &m_out;
};

} // namespace kwb::pipeline
