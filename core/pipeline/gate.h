// SPDX-License-Identifier: MIT
#pragma once

// Gates: the points where the pipeline waits for a person (or a script) before going on.

#include "model/candidate.h"
#include "model/evalresult.h"
#include "model/llmexchange.h"

#include <QList>
#include <QSet>
#include <QString>
#include <QStringList>

#include <optional>

namespace kwb::pipeline {

/// Where in a step a gate opens.
enum class GatePoint {
    BeforeLlm, ///< the prompt is ready, nothing sent yet
    AfterGeneration, ///< the answer's code is in the tree, not evaluated yet
    AfterEvaluation, ///< the candidate has its result; the next step has not started
};
QString toName(GatePoint p);
std::optional<GatePoint> gatePointFromString(const QString &s);

/// When gates open at all.
enum class GatePolicy {
    All, ///< at every enabled point
    Failures, ///< only after an evaluation that failed or broke integrity, and after a failed LLM call
    None, ///< fully automatic
};
QString toName(GatePolicy p);
std::optional<GatePolicy> gatePolicyFromString(const QString &s);

/// What a person (or a script) decided at a gate. The names are the ones recorded in GateRecord.
enum class GateAction {
    Approve, ///< go on as planned
    EditPrompt, ///< BeforeLlm: send `text` as the last user message instead
    EditCode, ///< AfterGeneration/AfterEvaluation: `text` is new code, a ManualEdit candidate
    Reprompt, ///< AfterGeneration/AfterEvaluation: send `text` as a follow-up in the same conversation
    Skip, ///< skip this step (the LLM call, the evaluation, or the stage)
    UseAsBase, ///< take `candidateId` as the base of what follows
    Stop, ///< stop the run (it can be resumed)
    Override, ///< accept the candidate's integrity violation; `text` is the written reason
};
QString toName(GateAction a);
std::optional<GateAction> gateActionFromString(const QString &s);

/// What the pipeline shows while it waits.
struct GateRequest {
    int serial = 0; ///< increases with each gate of a pipeline; a decision answers one serial
    GatePoint point = GatePoint::BeforeLlm;
    QString gate; ///< the recorded gate name, e.g. "before_llm:seed1", "after_eval:c0004"
    QString step; ///< the step's call type / label, e.g. "seed1_repair1", "stage_grid"
    QString candidateId; ///< the candidate concerned (AfterGeneration, AfterEvaluation)
    QString baseId; ///< the candidate the step builds on, if any
    QList<ChatMessage> messages; ///< BeforeLlm: the prompt about to be sent
    QString code; ///< AfterGeneration/AfterEvaluation: the candidate's code
    std::optional<EvalResult> eval; ///< AfterEvaluation
    bool failed = false; ///< the evaluation failed, broke integrity, or the LLM call failed
    QString summary; ///< one line for a person: what is about to happen / what happened
    QList<GateAction> allowed; ///< the actions that mean something here
};

/// The answer to a GateRequest.
struct GateDecision {
    GateAction action = GateAction::Approve;
    QString text; ///< edited prompt, edited code, follow-up message, or override reason
    QString candidateId; ///< UseAsBase: the new base
    QString reason; ///< why (recorded)

    static GateDecision approve() { return {}; }
    static GateDecision make(GateAction a, const QString &text = {}, const QString &reason = {})
    {
        GateDecision d;
        d.action = a;
        d.text = text;
        d.reason = reason;
        return d;
    }
};

/// True when `policy` and the enabled `points` open this gate.
bool gateOpens(GatePolicy policy, const QSet<GatePoint> &points, GatePoint point, bool failed);

/// The actions that mean something at a point.
QList<GateAction> allowedActions(GatePoint point);

} // namespace kwb::pipeline
