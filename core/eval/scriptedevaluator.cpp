// SPDX-License-Identifier: MIT
#include "eval/scriptedevaluator.h"

#include "model/json.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <QTimer>

#include <cmath>

namespace kwb {

namespace {

const QString kDevice = QStringLiteral("scripted (nothing ran)");

/// A series whose every figure is `ms`: a scripted figure has no spread.
LatencyStats exact(double ms, int samples)
{
    LatencyStats s;
    if (!std::isfinite(ms))
        return s;
    s.medianMs = s.meanMs = s.minMs = s.maxMs = ms;
    s.stdMs = 0.0;
    s.cv = 0.0;
    s.samples = std::max(1, samples);
    return s;
}

QString head(const QString &code)
{
    QString line = code.simplified();
    return line.size() > 80 ? line.left(77) + QStringLiteral("...") : line;
}

bool positive(const QJsonValue &v) { return v.isDouble() && std::isfinite(v.toDouble()) && v.toDouble() > 0; }

/// The samples a scripted figure counts: the rounds asked for, or the judge's own count on a GPU.
int samplesFor(const EvalRequest &req)
{
    return req.repeat > 0 ? req.repeat : AutoRoundsGpu;
}

} // namespace

ScriptedEvaluator::ScriptedEvaluator(QObject *parent) : EvalBackend(parent)
{
    setBaseline(1.0);
}

ScriptedEvaluator::~ScriptedEvaluator() = default;

void ScriptedEvaluator::setBaseline(double eagerMs, double graphMs)
{
    m_eager = exact(eagerMs, 1);
    m_graph = exact(graphMs, 1);
}

void ScriptedEvaluator::addRule(Rule rule)
{
    m_rules.append(std::move(rule));
}

void ScriptedEvaluator::addCorrect(const QString &source, double ms, const QList<Verdict> &flags)
{
    Rule r;
    r.source = source;
    r.result.status = EvalStatus::Ok;
    r.result.candidate = exact(ms, 1);
    r.result.runtimeChecks = flags;
    addRule(r);
}

void ScriptedEvaluator::addFailure(const QString &source, EvalStatus status, const QString &reason)
{
    Rule r;
    r.source = source;
    r.result.status = status;
    r.result.reason = reason;
    addRule(r);
}

bool ScriptedEvaluator::loadFile(const QString &path, QString *error)
{
    auto fail = [&](const QString &why) {
        if (error)
            *error = QStringLiteral("%1: %2").arg(path, why);
        return false;
    };
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return fail(f.errorString());
    QJsonParseError pe;
    const QJsonDocument doc = QJsonDocument::fromJson(f.readAll(), &pe);
    if (!doc.isObject())
        return fail(pe.error != QJsonParseError::NoError ? pe.errorString() : QStringLiteral("not a JSON object"));
    const QJsonObject root = doc.object();
    if (root.value(QStringLiteral("format")).toString() != QLatin1String("kwb-scripted-eval"))
        return fail(QStringLiteral("not a scripted-evaluation script (\"format\": \"kwb-scripted-eval\" missing)"));
    for (auto it = root.begin(); it != root.end(); ++it)
        if (!QSet<QString>{QStringLiteral("format"), QStringLiteral("baseline"), QStringLiteral("candidates"),
                           QStringLiteral("comment")}
                 .contains(it.key()))
            return fail(QStringLiteral("unknown key \"%1\"").arg(it.key()));

    LatencyStats eager = exact(1.0, 1);
    LatencyStats graph;
    const QJsonObject base = root.value(QStringLiteral("baseline")).toObject();
    for (auto it = base.begin(); it != base.end(); ++it) {
        if (it.key() != QLatin1String("eager_ms") && it.key() != QLatin1String("graph_ms"))
            return fail(QStringLiteral("baseline: unknown key \"%1\"").arg(it.key()));
        if (!positive(it.value()))
            return fail(QStringLiteral("baseline: %1 must be a positive number").arg(it.key()));
    }
    if (base.contains(QStringLiteral("eager_ms")))
        eager = exact(base.value(QStringLiteral("eager_ms")).toDouble(), 1);
    if (base.contains(QStringLiteral("graph_ms")))
        graph = exact(base.value(QStringLiteral("graph_ms")).toDouble(), 1);

    static const QSet<QString> known{QStringLiteral("source"), QStringLiteral("task"),     QStringLiteral("status"),
                                     QStringLiteral("ms"),     QStringLiteral("eager_ms"), QStringLiteral("graph_ms"),
                                     QStringLiteral("max_abs_err"), QStringLiteral("reason"), QStringLiteral("flags"),
                                     QStringLiteral("comment")};
    QList<Rule> rules;
    const QJsonArray list = root.value(QStringLiteral("candidates")).toArray();
    for (int i = 0; i < list.size(); ++i) {
        const QJsonObject o = list.at(i).toObject();
        const QString where = QStringLiteral("candidates[%1]").arg(i);
        for (auto it = o.begin(); it != o.end(); ++it)
            if (!known.contains(it.key()))
                return fail(QStringLiteral("%1: unknown key \"%2\"").arg(where, it.key()));
        Rule r;
        r.source = o.value(QStringLiteral("source")).toString();
        r.task = o.value(QStringLiteral("task")).toString();
        if (r.source.isEmpty() && r.task.isEmpty())
            return fail(QStringLiteral("%1: give \"source\" or \"task\" (what the rule matches)").arg(where));
        const QString status = o.value(QStringLiteral("status")).toString(QStringLiteral("ok"));
        r.result.status = evalStatusFromString(status);
        if (toName(r.result.status) != status)
            return fail(QStringLiteral("%1: unknown status \"%2\"").arg(where, status));
        for (const char *k : {"ms", "eager_ms", "graph_ms"})
            if (o.contains(QLatin1String(k)) && !positive(o.value(QLatin1String(k))))
                return fail(QStringLiteral("%1: %2 must be a positive number").arg(where, QLatin1String(k)));
        if (r.result.status == EvalStatus::Ok && !o.contains(QStringLiteral("ms")))
            return fail(QStringLiteral("%1: a correct candidate needs its \"ms\"").arg(where));
        r.result.candidate = exact(o.value(QStringLiteral("ms")).toDouble(NAN), 1);
        r.result.eager = exact(o.value(QStringLiteral("eager_ms")).toDouble(NAN), 1);
        r.result.graph = exact(o.value(QStringLiteral("graph_ms")).toDouble(NAN), 1);
        if (o.contains(QStringLiteral("max_abs_err")))
            r.result.maxAbsErr = json::toDouble(o.value(QStringLiteral("max_abs_err")));
        r.result.reason = o.value(QStringLiteral("reason")).toString();
        r.result.runtimeChecks = json::verdictsFromJson(o.value(QStringLiteral("flags")).toArray());
        rules.append(r);
    }
    m_rules = rules;
    m_eager = eager;
    m_graph = graph;
    m_scriptName = QFileInfo(path).absoluteFilePath();
    return true;
}

void ScriptedEvaluator::stamp(EvalResult &r, const EvalRequest &req, const QString &what) const
{
    r.device = kDevice;
    r.onGpu = false;
    r.atol = req.atol;
    r.rtol = req.rtol;
    r.sandboxNote = QStringLiteral("scripted: no code ran");
    r.logTail = QStringLiteral("scripted evaluation (%1): %2; no worker ran, nothing was measured")
                    .arg(m_scriptName.isEmpty() ? QStringLiteral("script built in code") : m_scriptName, what);
    if (r.profile.isEmpty() && r.profileNote.isEmpty())
        r.profileNote = req.profile ? QStringLiteral("not profiled: a scripted evaluation runs nothing")
                                    : QStringLiteral("not profiled: not requested");
}

EvalResult ScriptedEvaluator::answer(const EvalRequest &req, const QString &source, int *ruleIndex) const
{
    const QString task = QFileInfo(req.taskFile).completeBaseName();
    int found = -1;
    for (int i = 0; i < m_rules.size() && found < 0; ++i) {
        const Rule &rule = m_rules.at(i);
        if ((rule.source.isEmpty() || source.contains(rule.source)) && (rule.task.isEmpty() || rule.task == task))
            found = i;
    }
    if (ruleIndex)
        *ruleIndex = found;
    EvalResult r;
    if (found < 0) {
        r.status = EvalStatus::InternalError;
        r.reason = QStringLiteral("scripted evaluator: no rule matches this candidate (task %1: %2)").arg(task, head(source));
        stamp(r, req, QStringLiteral("no rule matched"));
        return r;
    }
    const Rule &rule = m_rules.at(found);
    r = rule.result;
    const int samples = samplesFor(req);
    if (r.correct()) {
        r.candidate = exact(r.candidate.medianMs, samples);
        r.trials = req.trials;
        r.failingTrial = -1;
        if (!std::isfinite(r.maxAbsErr))
            r.maxAbsErr = 0.0;
        r.meanAbsErr = 0.0;
        r.eager = req.baselines ? exact(r.eager.isValid() ? r.eager.medianMs : m_eager.medianMs, samples) : LatencyStats{};
        r.graph = req.baselines && req.graphBaseline ? exact(r.graph.isValid() ? r.graph.medianMs : m_graph.medianMs, samples)
                                                     : LatencyStats{};
        if (r.reason.isEmpty())
            r.reason = QStringLiteral("scripted: correct, %1 ms").arg(r.candidate.medianMs);
    } else {
        r.candidate = {};
        if (r.reason.isEmpty())
            r.reason = QStringLiteral("scripted: %1").arg(toName(r.status));
    }
    QStringList matched;
    if (!rule.source.isEmpty())
        matched << QStringLiteral("source \"%1\"").arg(rule.source);
    if (!rule.task.isEmpty())
        matched << QStringLiteral("task %1").arg(rule.task);
    stamp(r, req, QStringLiteral("rule %1 (%2)").arg(found).arg(matched.join(QStringLiteral(", "))));
    return r;
}

EvalResult ScriptedEvaluator::baselineResult(const EvalRequest &req) const
{
    EvalResult r;
    r.status = EvalStatus::Ok;
    const int samples = samplesFor(req);
    r.eager = exact(m_eager.medianMs, samples);
    if (req.graphBaseline)
        r.graph = exact(m_graph.medianMs, samples);
    r.reason = QStringLiteral("scripted baseline: eager %1 ms").arg(r.eager.medianMs);
    stamp(r, req, QStringLiteral("the script's baseline"));
    return r;
}

QString ScriptedEvaluator::evaluate(const EvalRequest &req)
{
    return submit(req, false);
}

QString ScriptedEvaluator::baseline(const EvalRequest &req, bool useCache)
{
    Q_UNUSED(useCache); // nothing is measured, so nothing is cached
    return submit(req, true);
}

QString ScriptedEvaluator::submit(const EvalRequest &req, bool isBaseline)
{
    Call call;
    call.jobId = QStringLiteral("scripted-%1").arg(m_nextId++);
    call.request = req;
    call.baseline = isBaseline;
    EvalResult result;
    if (isBaseline) {
        result = baselineResult(req);
    } else {
        // Read now: what counts is the code as it was when the evaluation was asked for.
        QFile f(req.candidateFile);
        if (f.open(QIODevice::ReadOnly)) {
            call.source = QString::fromUtf8(f.readAll());
            result = answer(req, call.source, &call.rule);
        } else {
            result.status = EvalStatus::InternalError;
            result.reason = QStringLiteral("scripted evaluator: cannot read %1: %2").arg(req.candidateFile, f.errorString());
            stamp(result, req, QStringLiteral("no candidate file"));
        }
    }
    m_calls.append(call);
    const QString id = call.jobId;
    m_pending.insert(id, result);
    QTimer::singleShot(0, this, [this, id] {
        if (!m_pending.contains(id))
            return;
        emit jobStarted(id);
        emit phaseChanged(id, QStringLiteral("running"));
    });
    if (m_holding && !isBaseline)
        m_held.append(id);
    else
        QTimer::singleShot(0, this, [this, id] { finish(id); });
    return id;
}

void ScriptedEvaluator::finish(const QString &jobId)
{
    if (!m_pending.contains(jobId))
        return; // cancelled
    const EvalResult r = m_pending.take(jobId);
    emit evaluationFinished(jobId, r);
}

void ScriptedEvaluator::cancel(const QString &jobId)
{
    if (!m_pending.contains(jobId))
        return;
    const EvalRequest req = [&] {
        for (auto &c : m_calls)
            if (c.jobId == jobId) {
                c.cancelled = true;
                return c.request;
            }
        return EvalRequest{};
    }();
    m_pending.remove(jobId);
    m_held.removeAll(jobId);
    EvalResult r;
    r.status = EvalStatus::Cancelled;
    r.reason = QStringLiteral("cancelled");
    stamp(r, req, QStringLiteral("cancelled"));
    QTimer::singleShot(0, this, [this, jobId, r] { emit evaluationFinished(jobId, r); });
}

void ScriptedEvaluator::setHoldEvaluations(bool on)
{
    m_holding = on;
    if (on)
        return;
    const QList<QString> held = std::exchange(m_held, {});
    for (const auto &id : held)
        QTimer::singleShot(0, this, [this, id] { finish(id); });
}

int ScriptedEvaluator::heldEvaluations() const
{
    return int(m_held.size());
}

int ScriptedEvaluator::evaluationsOf(const QString &source) const
{
    int n = 0;
    for (const auto &c : m_calls)
        if (!c.baseline && c.source.contains(source))
            ++n;
    return n;
}

} // namespace kwb
