// SPDX-License-Identifier: MIT
#include "pipeline/decider.h"

#include <QFile>

namespace kwb::pipeline {

void AutomaticDecider::decide(const GateRequest &, Reply reply)
{
    reply(GateDecision::approve());
}

void ScriptedDecider::decide(const GateRequest &request, Reply reply)
{
    m_seen.append(request);
    if (!m_entries.isEmpty()) {
        const Entry &e = m_entries.first();
        const bool pointOk = !e.point || *e.point == request.point;
        const bool stepOk = e.step.isEmpty() || request.step.startsWith(e.step) || request.gate.startsWith(e.step);
        if (pointOk && stepOk) {
            const GateDecision d = e.compute ? e.compute(request) : e.decision;
            m_entries.removeFirst();
            reply(d);
            return;
        }
    }
    reply(GateDecision::approve());
}

QString TerminalDecider::readBlock()
{
    QStringList lines;
    while (!m_in.atEnd()) {
        const QString l = m_in.readLine();
        if (l == QLatin1String("."))
            break;
        lines.append(l);
    }
    return lines.join(QLatin1Char('\n'));
}

GateDecision TerminalDecider::parse(const GateRequest &request, const QString &answer)
{
    const QString line = answer.trimmed();
    const QString cmd = line.section(QLatin1Char(' '), 0, 0).toLower();
    const QString rest = line.section(QLatin1Char(' '), 1).trimmed();
    if (cmd.isEmpty() || cmd == QLatin1String("a") || cmd == QLatin1String("approve"))
        return GateDecision::approve();
    if (cmd == QLatin1String("q") || cmd == QLatin1String("stop"))
        return GateDecision::make(GateAction::Stop, {}, rest);
    if (cmd == QLatin1String("s") || cmd == QLatin1String("skip"))
        return GateDecision::make(GateAction::Skip, {}, rest);
    if (cmd == QLatin1String("r") || cmd == QLatin1String("reprompt")) {
        QString text = rest;
        if (text.isEmpty()) {
            m_out << "follow-up message, end with a line holding a single '.':\n";
            m_out.flush();
            text = readBlock();
        }
        return GateDecision::make(GateAction::Reprompt, text, QStringLiteral("re-prompted at the terminal"));
    }
    if (cmd == QLatin1String("o") || cmd == QLatin1String("override"))
        return GateDecision::make(GateAction::Override, rest, rest);
    if (cmd == QLatin1String("b") || cmd == QLatin1String("base")) {
        GateDecision d = GateDecision::make(GateAction::UseAsBase, {}, QStringLiteral("base chosen at the terminal"));
        d.candidateId = rest;
        return d;
    }
    if (cmd == QLatin1String("e") || cmd == QLatin1String("edit")) {
        QString text;
        if (!rest.isEmpty()) {
            QFile f(rest);
            if (f.open(QIODevice::ReadOnly))
                text = QString::fromUtf8(f.readAll());
        }
        if (text.isEmpty()) {
            m_out << "new " << (request.point == GatePoint::BeforeLlm ? "prompt" : "code")
                  << ", end with a line holding a single '.':\n";
            m_out.flush();
            text = readBlock();
        }
        const GateAction a = request.point == GatePoint::BeforeLlm ? GateAction::EditPrompt : GateAction::EditCode;
        return GateDecision::make(a, text, QStringLiteral("edited at the terminal"));
    }
    m_out << "unknown answer '" << cmd << "': approving\n";
    return GateDecision::approve();
}

void TerminalDecider::decide(const GateRequest &request, Reply reply)
{
    m_out << "\n== gate " << request.gate << ": " << request.summary << "\n";
    if (request.point == GatePoint::BeforeLlm && !request.messages.isEmpty())
        m_out << "   prompt: " << request.messages.last().content.size() << " characters\n";
    if (request.eval)
        m_out << "   result: " << toName(request.eval->status) << " " << request.eval->reason << "\n";
    QStringList names;
    for (auto a : request.allowed)
        names.append(toName(a));
    m_out << "   [a]pprove, [e]dit [FILE], [r]eprompt TEXT, [s]kip, [b]ase CID, [o]verride REASON, [q]uit  ("
          << names.join(QLatin1String(", ")) << ")\n> ";
    m_out.flush();
    const QString line = m_in.atEnd() ? QString() : m_in.readLine();
    reply(parse(request, line));
}

} // namespace kwb::pipeline
