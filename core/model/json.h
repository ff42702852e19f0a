// SPDX-License-Identifier: MIT
#pragma once

// The one place where the value types meet JSON. Readers are lenient about missing keys
// (defaults) and strict about types they cannot use; they never throw.

#include "candidate.h"
#include "evalresult.h"
#include "llmexchange.h"
#include "run.h"
#include "verdict.h"

#include <QJsonArray>
#include <QJsonObject>

namespace kwb::json {

QJsonObject toJson(const Evidence &e);
Evidence evidenceFromJson(const QJsonObject &o);
QJsonObject toJson(const Verdict &v);
Verdict verdictFromJson(const QJsonObject &o);
QJsonArray toJson(const QList<Verdict> &vs);
QList<Verdict> verdictsFromJson(const QJsonArray &a);

QJsonObject toJson(const LatencyStats &s);
LatencyStats latencyFromJson(const QJsonObject &o);
QJsonObject toJson(const EvalResult &r);
EvalResult evalResultFromJson(const QJsonObject &o);

QJsonObject toJson(const ChatMessage &m);
ChatMessage chatMessageFromJson(const QJsonObject &o);
QJsonObject toJson(const LlmExchange &x);
LlmExchange exchangeFromJson(const QJsonObject &o);

QJsonObject toJson(const KernelProfile &p);
KernelProfile kernelProfileFromJson(const QJsonObject &o);

QJsonObject toJson(const Candidate &c);
Candidate candidateFromJson(const QJsonObject &o);

QJsonObject toJson(const GateRecord &g);
GateRecord gateRecordFromJson(const QJsonObject &o);

QJsonObject toJson(const RunInfo &i);
RunInfo runInfoFromJson(const QJsonObject &o);

/// JSON has no NaN: non-finite doubles are written as null and read back as NaN.
QJsonValue number(double d);
double toDouble(const QJsonValue &v);

} // namespace kwb::json
