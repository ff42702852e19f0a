// SPDX-License-Identifier: MIT
#include "json.h"

#include <QJsonValue>

#include <cmath>
#include <limits>

namespace kwb::json {

QJsonValue number(double d)
{
    return std::isfinite(d) ? QJsonValue(d) : QJsonValue(QJsonValue::Null);
}

double toDouble(const QJsonValue &v)
{
    return v.isDouble() ? v.toDouble() : std::numeric_limits<double>::quiet_NaN();
}

static QDateTime dateFromJson(const QJsonValue &v)
{
    return QDateTime::fromString(v.toString(), Qt::ISODateWithMs);
}

static QString dateToJson(const QDateTime &d)
{
    return d.isValid() ? d.toUTC().toString(Qt::ISODateWithMs) : QString();
}

QJsonObject toJson(const Evidence &e)
{
    return {{"first_line", e.firstLine}, {"last_line", e.lastLine}, {"text", e.text}};
}

Evidence evidenceFromJson(const QJsonObject &o)
{
    return {o.value("first_line").toInt(), o.value("last_line").toInt(), o.value("text").toString()};
}

QJsonObject toJson(const Verdict &v)
{
    QJsonArray ev;
    for (const auto &e : v.evidence)
        ev.append(toJson(e));
    return {{"detector", v.detector},
            {"outcome", toName(v.outcome)},
            {"severity", toName(v.severity)},
            {"summary", v.summary},
            {"evidence", ev},
            {"suggested_fix", v.suggestedFix}};
}

Verdict verdictFromJson(const QJsonObject &o)
{
    Verdict v;
    v.detector = o.value("detector").toString();
    v.outcome = outcomeFromString(o.value("outcome").toString());
    v.severity = severityFromString(o.value("severity").toString());
    v.summary = o.value("summary").toString();
    for (const auto &e : o.value("evidence").toArray())
        v.evidence.append(evidenceFromJson(e.toObject()));
    v.suggestedFix = o.value("suggested_fix").toString();
    return v;
}

QJsonArray toJson(const QList<Verdict> &vs)
{
    QJsonArray a;
    for (const auto &v : vs)
        a.append(toJson(v));
    return a;
}

QList<Verdict> verdictsFromJson(const QJsonArray &a)
{
    QList<Verdict> vs;
    for (const auto &v : a)
        vs.append(verdictFromJson(v.toObject()));
    return vs;
}

QJsonObject toJson(const LatencyStats &s)
{
    return {{"median_ms", number(s.medianMs)}, {"mean_ms", number(s.meanMs)}, {"std_ms", number(s.stdMs)},
            {"min_ms", number(s.minMs)},       {"max_ms", number(s.maxMs)},   {"cv", number(s.cv)},
            {"samples", s.samples}};
}

LatencyStats latencyFromJson(const QJsonObject &o)
{
    LatencyStats s;
    s.medianMs = toDouble(o.value("median_ms"));
    s.meanMs = toDouble(o.value("mean_ms"));
    s.stdMs = toDouble(o.value("std_ms"));
    s.minMs = toDouble(o.value("min_ms"));
    s.maxMs = toDouble(o.value("max_ms"));
    s.cv = toDouble(o.value("cv"));
    s.samples = o.value("samples").toInt();
    return s;
}

QJsonObject toJson(const EvalResult &r)
{
    QJsonObject prof;
    for (auto it = r.profile.cbegin(); it != r.profile.cend(); ++it)
        prof.insert(it.key(), number(it.value()));
    return {{"status", toName(r.status)},
            {"reason", r.reason},
            {"log_tail", r.logTail},
            {"device", r.device},
            {"on_gpu", r.onGpu},
            {"torch_version", r.torchVersion},
            {"trials", r.trials},
            {"failing_trial", r.failingTrial},
            {"max_abs_err", number(r.maxAbsErr)},
            {"mean_abs_err", number(r.meanAbsErr)},
            {"max_abs_err_fp64", number(r.maxAbsErrFp64)},
            {"atol", r.atol},
            {"rtol", r.rtol},
            {"candidate", toJson(r.candidate)},
            {"eager", toJson(r.eager)},
            {"graph", toJson(r.graph)},
            {"runtime_checks", toJson(r.runtimeChecks)},
            {"candidate_peak_bytes", double(r.candidatePeakBytes)},
            {"reference_peak_bytes", double(r.referencePeakBytes)},
            {"memory_note", r.memoryNote},
            {"profile", prof},
            {"profile_note", r.profileNote},
            {"sandboxed", r.sandboxed},
            {"sandbox_note", r.sandboxNote},
            {"wall_seconds", r.wallSeconds}};
}

EvalResult evalResultFromJson(const QJsonObject &o)
{
    EvalResult r;
    r.status = evalStatusFromString(o.value("status").toString());
    r.reason = o.value("reason").toString();
    r.logTail = o.value("log_tail").toString();
    r.device = o.value("device").toString();
    r.onGpu = o.value("on_gpu").toBool();
    r.torchVersion = o.value("torch_version").toString();
    r.trials = o.value("trials").toInt();
    r.failingTrial = o.value("failing_trial").toInt(-1);
    r.maxAbsErr = toDouble(o.value("max_abs_err"));
    r.meanAbsErr = toDouble(o.value("mean_abs_err"));
    r.maxAbsErrFp64 = toDouble(o.value("max_abs_err_fp64"));
    r.atol = o.value("atol").toDouble(1e-4);
    r.rtol = o.value("rtol").toDouble(1e-4);
    r.candidate = latencyFromJson(o.value("candidate").toObject());
    r.eager = latencyFromJson(o.value("eager").toObject());
    r.graph = latencyFromJson(o.value("graph").toObject());
    r.runtimeChecks = verdictsFromJson(o.value("runtime_checks").toArray());
    r.candidatePeakBytes = qint64(o.value("candidate_peak_bytes").toDouble(-1));
    r.referencePeakBytes = qint64(o.value("reference_peak_bytes").toDouble(-1));
    r.memoryNote = o.value("memory_note").toString();
    const auto prof = o.value("profile").toObject();
    for (auto it = prof.begin(); it != prof.end(); ++it)
        r.profile.insert(it.key(), toDouble(it.value()));
    r.profileNote = o.value("profile_note").toString();
    r.sandboxed = o.value("sandboxed").toBool();
    r.sandboxNote = o.value("sandbox_note").toString();
    r.wallSeconds = o.value("wall_seconds").toDouble();
    return r;
}

QJsonObject toJson(const ChatMessage &m)
{
    return {{"role", m.role}, {"content", m.content}};
}

ChatMessage chatMessageFromJson(const QJsonObject &o)
{
    return {o.value("role").toString(), o.value("content").toString()};
}

QJsonObject toJson(const LlmExchange &x)
{
    QJsonArray msgs;
    for (const auto &m : x.messages)
        msgs.append(toJson(m));
    return {{"id", x.id},
            {"call_type", x.callType},
            {"provider", x.provider},
            {"model", x.model},
            {"messages", msgs},
            {"response", x.response},
            {"reasoning", x.reasoning},
            {"input_tokens", x.inputTokens},
            {"output_tokens", x.outputTokens},
            {"tokens_estimated", x.tokensEstimated},
            {"cost_usd", x.costUsd},
            {"duration_ms", x.durationMs},
            {"started_at", dateToJson(x.startedAt)},
            {"error", x.error},
            {"prompt_hash", x.promptHash},
            {"candidate_id", x.candidateId}};
}

LlmExchange exchangeFromJson(const QJsonObject &o)
{
    LlmExchange x;
    x.id = o.value("id").toString();
    x.callType = o.value("call_type").toString();
    x.provider = o.value("provider").toString();
    x.model = o.value("model").toString();
    for (const auto &m : o.value("messages").toArray())
        x.messages.append(chatMessageFromJson(m.toObject()));
    x.response = o.value("response").toString();
    x.reasoning = o.value("reasoning").toString();
    x.inputTokens = o.value("input_tokens").toInt();
    x.outputTokens = o.value("output_tokens").toInt();
    x.tokensEstimated = o.value("tokens_estimated").toBool();
    x.costUsd = o.value("cost_usd").toDouble();
    x.durationMs = o.value("duration_ms").toInteger();
    x.startedAt = dateFromJson(o.value("started_at"));
    x.error = o.value("error").toString();
    x.promptHash = o.value("prompt_hash").toString();
    x.candidateId = o.value("candidate_id").toString();
    return x;
}

QJsonObject toJson(const KernelProfile &p)
{
    QJsonObject metrics;
    for (auto it = p.metrics.cbegin(); it != p.metrics.cend(); ++it)
        metrics.insert(it.key(), number(it.value()));
    return {{"metrics", metrics}, {"note", p.note}, {"seconds", number(p.seconds)}, {"device", p.device},
            {"at", dateToJson(p.at)}};
}

KernelProfile kernelProfileFromJson(const QJsonObject &o)
{
    KernelProfile p;
    const QJsonObject metrics = o.value("metrics").toObject();
    for (auto it = metrics.constBegin(); it != metrics.constEnd(); ++it)
        if (it.value().isDouble())
            p.metrics.insert(it.key(), it.value().toDouble());
    p.note = o.value("note").toString();
    p.seconds = toDouble(o.value("seconds"));
    p.device = o.value("device").toString();
    p.at = dateFromJson(o.value("at"));
    return p;
}

QJsonObject toJson(const Candidate &c)
{
    QJsonObject o{{"id", c.id},
                  {"parent_id", c.parentId},
                  {"kind", toName(c.kind)},
                  {"label", c.label},
                  {"code_file", c.codeFile},
                  {"status", toName(c.status)},
                  {"verdicts", toJson(c.verdicts)},
                  {"exchange_ids", QJsonArray::fromStringList(c.exchangeIds)},
                  {"note", c.note},
                  {"override_reason", c.overrideReason},
                  {"created_at", dateToJson(c.createdAt)}};
    if (c.eval)
        o.insert("eval", toJson(*c.eval));
    if (c.profile) // absent in runs made before profiles were stored: those read back without one
        o.insert("profile", toJson(*c.profile));
    return o;
}

Candidate candidateFromJson(const QJsonObject &o)
{
    Candidate c;
    c.id = o.value("id").toString();
    c.parentId = o.value("parent_id").toString();
    c.kind = candidateKindFromString(o.value("kind").toString()).value_or(CandidateKind::Seed);
    c.label = o.value("label").toString();
    c.codeFile = o.value("code_file").toString();
    c.status = candidateStatusFromString(o.value("status").toString());
    if (o.contains("eval") && o.value("eval").isObject())
        c.eval = evalResultFromJson(o.value("eval").toObject());
    if (o.value("profile").isObject())
        c.profile = kernelProfileFromJson(o.value("profile").toObject());
    c.verdicts = verdictsFromJson(o.value("verdicts").toArray());
    for (const auto &v : o.value("exchange_ids").toArray())
        c.exchangeIds.append(v.toString());
    c.note = o.value("note").toString();
    c.overrideReason = o.value("override_reason").toString();
    c.createdAt = dateFromJson(o.value("created_at"));
    return c;
}

QJsonObject toJson(const GateRecord &g)
{
    return {{"gate", g.gate},
            {"decision", g.decision},
            {"reason", g.reason},
            {"candidate_id", g.candidateId},
            {"at", dateToJson(g.at)}};
}

GateRecord gateRecordFromJson(const QJsonObject &o)
{
    return {o.value("gate").toString(), o.value("decision").toString(), o.value("reason").toString(),
            o.value("candidate_id").toString(), dateFromJson(o.value("at"))};
}

QJsonObject toJson(const RunInfo &i)
{
    return {{"schema_version", i.schemaVersion},
            {"id", i.id},
            {"task_name", i.taskName},
            {"task_file", i.taskFile},
            {"task_hash", i.taskHash},
            {"provider", i.provider},
            {"model", i.model},
            {"created_at", dateToJson(i.createdAt)},
            {"state", toName(i.state)},
            {"best_candidate_id", i.bestCandidateId},
            {"settings", i.settings},
            {"note", i.note}};
}

RunInfo runInfoFromJson(const QJsonObject &o)
{
    RunInfo i;
    i.schemaVersion = o.value("schema_version").toInt(0);
    i.id = o.value("id").toString();
    i.taskName = o.value("task_name").toString();
    i.taskFile = o.value("task_file").toString();
    i.taskHash = o.value("task_hash").toString();
    i.provider = o.value("provider").toString();
    i.model = o.value("model").toString();
    i.createdAt = dateFromJson(o.value("created_at"));
    i.state = runStateFromString(o.value("state").toString());
    i.bestCandidateId = o.value("best_candidate_id").toString();
    i.settings = o.value("settings").toObject();
    i.note = o.value("note").toString();
    return i;
}

} // namespace kwb::json
