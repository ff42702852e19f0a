// SPDX-License-Identifier: MIT
#pragma once

#include "eval/evalbackend.h"
#include "eval/evalrequest.h"
#include "model/evalresult.h"

#include <QHash>
#include <QList>
#include <QString>

#include <limits>

namespace kwb {

/// FOR TESTS AND DEMOS ONLY: an EvalBackend that runs nothing and measures nothing. Every evaluation
/// is answered with the status, figures and run-time flags a script states for that candidate, so a
/// test of the pipeline's decisions (best candidate, stage kept or rejected, repairs, resume, gates,
/// suite states) gets the same answer on every machine, whatever a CPU clock would have said.
///
/// A script is a list of rules tried in order; the first rule whose `source` is a substring of the
/// candidate's code (and whose `task`, when given, is the task file's base name) answers. A candidate
/// no rule matches comes back InternalError ("no scripted result"), so a forgotten rule shows.
/// baseline() answers with the script's eager (and CUDA-graph) figures. Every result says it is
/// scripted: device "scripted (nothing ran)" and a log line naming the rule.
///
/// The same script as a file (loadFile(); `kwb run` and `kwb suite` use one when $KWB_SCRIPTED_EVAL
/// names it, and say so on their first line):
///
///     {"format": "kwb-scripted-eval",
///      "baseline": {"eager_ms": 1.0, "graph_ms": 0.5},
///      "candidates": [
///        {"source": "x.clamp(min=0.0)", "status": "ok", "ms": 0.1},
///        {"source": "relu_kernel", "status": "runtime_error", "reason": "AttributeError: relu_kernel"},
///        {"task": "3_Matmul", "status": "crash"},
///        {"source": "for i in", "status": "ok", "ms": 40.0, "flags": [{"detector":
///          "integrity.timing_disagreement", "outcome": "yes", "severity": "critical", "summary": "..."}]}]}
///
/// Rule keys: `source`, `task` (what it matches; at least one), `status` (a worker status name, default
/// "ok"), `ms` (the candidate's median, required for "ok"), `eager_ms` / `graph_ms` (override the
/// baseline's), `max_abs_err`, `reason`, `flags` (verdicts in the run format), `comment`. Figures are
/// exact: median, mean, min and max all equal `ms`. An unknown key is an error (a typo would
/// otherwise pass silently).
///
/// Asynchronous like the real evaluators: evaluate() returns at once; jobStarted, phaseChanged("running")
/// and evaluationFinished follow from the event loop, in submission order.
class ScriptedEvaluator : public EvalBackend
{
    Q_OBJECT
public:
    /// One scripted answer.
    struct Rule {
        QString source; ///< a substring of the candidate's code; empty: any code
        QString task; ///< the task file's base name (e.g. "1_ReLU"); empty: any task
        EvalResult result; ///< what to answer (status, candidate/eager/graph figures, runtimeChecks, reason)
    };
    /// One request seen, in order (tests assert what was evaluated, and how often).
    struct Call {
        QString jobId;
        EvalRequest request;
        bool baseline = false;
        QString source; ///< the candidate's code as it was when evaluate() was called
        int rule = -1; ///< index of the rule that answered (-1: none, or a baseline)
        bool cancelled = false;
    };

    explicit ScriptedEvaluator(QObject *parent = nullptr);
    ~ScriptedEvaluator() override;

    /// Reads a script file (format above), replacing rules and baseline. False with `error` when it
    /// cannot be read or a rule is malformed (an unknown status, "ok" without `ms`, no match key).
    bool loadFile(const QString &path, QString *error = nullptr);
    /// Where the script came from (a file path, or empty when built in code).
    QString scriptName() const { return m_scriptName; }

    /// The baseline's figures (default: eager 1 ms, no CUDA graph).
    void setBaseline(double eagerMs, double graphMs = std::numeric_limits<double>::quiet_NaN());
    void addRule(Rule rule);
    /// Shorthands for rules: a correct candidate taking `ms`, a failure with a reason.
    void addCorrect(const QString &source, double ms, const QList<Verdict> &flags = {});
    void addFailure(const QString &source, EvalStatus status, const QString &reason);
    int ruleCount() const { return int(m_rules.size()); }

    /// While on, candidate evaluations start but do not finish until it is turned off (they then
    /// finish, in order) or they are cancelled: a test can stop a pipeline "in the middle of an
    /// evaluation". Baselines are answered as usual.
    void setHoldEvaluations(bool on);
    int heldEvaluations() const;

    QList<Call> calls() const { return m_calls; }
    /// How many evaluations (baselines not counted) `source` matched as a substring of the code.
    int evaluationsOf(const QString &source) const;

    QString evaluate(const EvalRequest &req) override;
    QString baseline(const EvalRequest &req, bool useCache = true) override;
    void cancel(const QString &jobId) override;

private:
    /// The result `req` gets for a candidate whose code is `source` (and the rule's index, -1: none).
    EvalResult answer(const EvalRequest &req, const QString &source, int *rule = nullptr) const;
    QString submit(const EvalRequest &req, bool baseline);
    void finish(const QString &jobId);
    EvalResult baselineResult(const EvalRequest &req) const;
    void stamp(EvalResult &r, const EvalRequest &req, const QString &what) const;

    QList<Rule> m_rules;
    LatencyStats m_eager;
    LatencyStats m_graph;
    QString m_scriptName;
    QList<Call> m_calls;
    QHash<QString, EvalResult> m_pending; ///< job id -> its answer, until it is delivered
    QList<QString> m_held; ///< evaluations waiting for setHoldEvaluations(false), in order
    bool m_holding = false;
    int m_nextId = 1;
};

} // namespace kwb
