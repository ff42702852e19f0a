// SPDX-License-Identifier: MIT
// The `kwb` Python module: open runs and walk their trees, evaluate candidates, run the pipeline
// headless with a gate callback written in Python. pybind11 comes before every Qt header.
#include "pyconvert.h"

#include <pybind11/functional.h>
#include <pybind11/stl.h>

#include "eval/evaluator.h"
#include "eval/scriptedevaluator.h"
#include "llm/providerconfig.h"
#include "llm/replayprovider.h"
#include "llm/tokens.h"
#include "model/json.h"
#include "pipeline/decider.h"
#include "pipeline/pipeline.h"
#include "store/runstore.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QJsonDocument>

#include <cmath>

namespace py = pybind11;
using namespace kwb;
using kwb::python::fromPy;
using kwb::python::qstr;
using kwb::python::toPy;

namespace {

/// Engine objects need a QCoreApplication (event loop, timers, processes); Python has none.
void ensureApp()
{
    if (QCoreApplication::instance())
        return;
    static int argc = 1;
    static char name[] = "kwb";
    static char *argv[] = {name, nullptr};
    new QCoreApplication(argc, argv); // lives as long as the interpreter
}

py::object optionalNumber(double v)
{
    return std::isfinite(v) ? py::object(py::float_(v)) : py::object(py::none());
}

/// A candidate of a run, with its code read on demand.
struct PyCandidate {
    Candidate c;
    QString runDir;
};

struct PyRun {
    Run run;
    QString dir;

    std::optional<PyCandidate> candidate(const QString &id) const
    {
        if (const Candidate *c = run.candidate(id))
            return PyCandidate{*c, dir};
        return std::nullopt;
    }
    std::vector<PyCandidate> candidates() const
    {
        std::vector<PyCandidate> out;
        for (const auto &c : run.candidates)
            out.push_back({c, dir});
        return out;
    }
    std::vector<PyCandidate> children(const QString &id) const
    {
        std::vector<PyCandidate> out;
        for (const Candidate *c : run.children(id))
            out.push_back({*c, dir});
        return out;
    }
    std::optional<PyCandidate> best() const
    {
        const QString id = run.info.bestCandidateId;
        if (!id.isEmpty() && run.candidate(id))
            return candidate(id);
        if (const Candidate *b = run.best())
            return PyCandidate{*b, dir};
        return std::nullopt;
    }
};

PyRun openRun(const std::string &path)
{
    ensureApp();
    QString error;
    const QString dir = QFileInfo(QString::fromStdString(path)).absoluteFilePath();
    auto run = store::openRun(dir, &error);
    if (!run)
        throw py::value_error(error.toStdString());
    return PyRun{*run, dir};
}

EvalRequest makeRequest(const std::string &task, const std::string &candidate, const std::string &device, int trials,
                        int warmup, int repeat, double atol, double rtol, int timeout, const std::string &pythonExe)
{
    EvalRequest req;
    req.taskFile = QFileInfo(QString::fromStdString(task)).absoluteFilePath();
    req.candidateFile = QFileInfo(QString::fromStdString(candidate)).absoluteFilePath();
    req.device = QString::fromStdString(device);
    req.trials = trials;
    req.warmup = warmup;
    req.repeat = repeat;
    req.atol = atol;
    req.rtol = rtol;
    req.runTimeoutSec = timeout;
    req.compileTimeoutSec = timeout;
    req.python = QString::fromStdString(pythonExe);
    return req;
}

py::dict evaluate(const std::string &task, const std::string &candidate, const std::string &device, int trials,
                  int warmup, int repeat, double atol, double rtol, int timeout, const std::string &pythonExe)
{
    ensureApp();
    if (!QFileInfo::exists(QString::fromStdString(task)))
        throw py::value_error("no such task file: " + task);
    if (!QFileInfo::exists(QString::fromStdString(candidate)))
        throw py::value_error("no such candidate file: " + candidate);
    const EvalRequest req = makeRequest(task, candidate, device, trials, warmup, repeat, atol, rtol, timeout, pythonExe);
    EvalResult r;
    {
        py::gil_scoped_release release; // the worker runs its own Python; this one may go on meanwhile
        Evaluator ev;
        r = ev.evaluateBlocking(req);
    }
    return toPy(json::toJson(r));
}

pipeline::GateDecision decisionFromPy(const py::handle &result)
{
    using namespace pipeline;
    if (result.is_none())
        return GateDecision::approve();
    if (py::isinstance<py::str>(result)) {
        const auto a = gateActionFromString(qstr(result));
        if (!a)
            throw py::value_error("unknown gate action: " + result.cast<std::string>());
        return GateDecision::make(*a);
    }
    if (py::isinstance<py::dict>(result)) {
        const QJsonObject o = fromPy(result).toObject();
        const auto a = gateActionFromString(o.value(QStringLiteral("action")).toString(QStringLiteral("approve")));
        if (!a)
            throw py::value_error("unknown gate action: " + o.value(QStringLiteral("action")).toString().toStdString());
        GateDecision d = GateDecision::make(*a, o.value(QStringLiteral("text")).toString(),
                                            o.value(QStringLiteral("reason")).toString());
        d.candidateId = o.value(QStringLiteral("candidate_id")).toString();
        return d;
    }
    throw py::type_error("a gate callback returns None, an action name or a dict {action, text, reason, candidate_id}");
}

py::dict requestToPy(const pipeline::GateRequest &r)
{
    py::dict d;
    d["serial"] = r.serial;
    d["point"] = toPy(pipeline::toName(r.point));
    d["gate"] = toPy(r.gate);
    d["step"] = toPy(r.step);
    d["candidate_id"] = toPy(r.candidateId);
    d["base_id"] = toPy(r.baseId);
    py::list msgs;
    for (const auto &m : r.messages)
        msgs.append(toPy(json::toJson(m)));
    d["messages"] = msgs;
    d["code"] = toPy(r.code);
    d["eval"] = r.eval ? py::object(toPy(json::toJson(*r.eval))) : py::object(py::none());
    d["failed"] = r.failed;
    d["summary"] = toPy(r.summary);
    py::list allowed;
    for (auto a : r.allowed)
        allowed.append(toPy(pipeline::toName(a)));
    d["allowed"] = allowed;
    return d;
}

/// Calls a Python function at each gate. An exception in it stops the run and is raised again
/// from run_pipeline().
class PyDecider : public pipeline::Decider
{
public:
    explicit PyDecider(py::function f) : m_f(std::move(f)) { }
    void decide(const pipeline::GateRequest &request, Reply reply) override
    {
        pipeline::GateDecision d;
        {
            py::gil_scoped_acquire acquire;
            try {
                d = decisionFromPy(m_f(requestToPy(request)));
            } catch (py::error_already_set &e) {
                m_error = std::make_unique<py::error_already_set>(std::move(e));
                d = pipeline::GateDecision::make(pipeline::GateAction::Stop, {}, QStringLiteral("the gate callback raised"));
            } catch (const std::exception &e) {
                m_message = e.what();
                d = pipeline::GateDecision::make(pipeline::GateAction::Stop, {}, QStringLiteral("the gate callback failed"));
            }
        }
        reply(d);
    }
    void rethrow()
    {
        if (m_error) {
            py::gil_scoped_acquire acquire;
            m_error->restore();
            m_error.reset();
            throw py::error_already_set();
        }
        if (!m_message.empty())
            throw std::runtime_error(m_message);
    }

private:
    py::function m_f;
    std::unique_ptr<py::error_already_set> m_error;
    std::string m_message;
};

PyRun runPipeline(const std::optional<std::string> &task, const std::optional<std::string> &provider,
                  const std::optional<std::string> &model, const std::optional<std::string> &baseUrl,
                  const std::optional<std::string> &cassette, bool lenient, int seeds, int maxRepairs, double threshold,
                  bool stages, bool detectors, bool profile, const std::string &gates, const std::optional<py::function> &gate,
                  const std::optional<std::string> &runsDir, const std::string &device, int trials, int warmup,
                  int repeat, const std::optional<std::string> &resume, const std::optional<py::function> &onLog,
                  const std::optional<std::string> &scriptedEval)
{
    ensureApp();
    pipeline::PipelineConfig cfg;
    if (task)
        cfg.taskFile = QFileInfo(QString::fromStdString(*task)).absoluteFilePath();
    if (resume)
        cfg.resumeDir = QString::fromStdString(*resume);
    if (cfg.taskFile.isEmpty() && cfg.resumeDir.isEmpty())
        throw py::value_error("give a task file, or resume=RUN_DIR");
    cfg.seeds = seeds;
    cfg.maxRepairs = maxRepairs;
    cfg.scoreThreshold = threshold;
    cfg.stages = stages;
    cfg.runDetectors = detectors;
    cfg.profile = profile;
    const auto policy = pipeline::gatePolicyFromString(QString::fromStdString(gates));
    if (!policy)
        throw py::value_error("gates is one of: all, failures, none");
    cfg.gatePolicy = *policy;
    if (runsDir)
        cfg.runsDir = QString::fromStdString(*runsDir);
    cfg.eval.device = QString::fromStdString(device);
    cfg.eval.trials = trials;
    cfg.eval.warmup = warmup;
    cfg.eval.repeat = repeat;

    llm::ProviderConfig pc;
    if (cassette) {
        pc = llm::findProvider(QStringLiteral("replay"));
        pc.name = QStringLiteral("replay");
        pc.wire = QStringLiteral("replay");
        pc.cassette = QFileInfo(QString::fromStdString(*cassette)).absoluteFilePath();
        pc.replayLenient = lenient;
        cfg.cassette = pc.cassette;
    } else if (provider) {
        bool found = false;
        pc = llm::findProvider(QString::fromStdString(*provider), &found);
        if (!found)
            throw py::value_error("unknown provider: " + *provider);
    } else {
        throw py::value_error("give provider=NAME or cassette=FILE");
    }
    if (model)
        pc.model = QString::fromStdString(*model);
    if (baseUrl)
        pc.baseUrl = QString::fromStdString(*baseUrl);
    QString error;
    auto llmProvider = llm::createProvider(pc, &error);
    if (!llmProvider)
        throw py::value_error(error.toStdString());
    if (auto *replay = qobject_cast<llm::ReplayProvider *>(llmProvider.get()); replay && !replay->isValid())
        throw py::value_error(replay->loadError().toStdString());

    // Tests and demos: a script states every evaluation's outcome, nothing runs (eval/scriptedevaluator.h).
    std::unique_ptr<EvalBackend> evaluator;
    if (scriptedEval) {
        auto scripted = std::make_unique<ScriptedEvaluator>();
        if (!scripted->loadFile(QString::fromStdString(*scriptedEval), &error))
            throw py::value_error(error.toStdString());
        evaluator = std::move(scripted);
    } else {
        evaluator = std::make_unique<Evaluator>();
    }
    pipeline::Pipeline pipe(cfg, llmProvider.get(), evaluator.get());
    pipeline::AutomaticDecider automatic;
    std::unique_ptr<PyDecider> pyDecider;
    if (gate) {
        pyDecider = std::make_unique<PyDecider>(*gate);
        pipe.setDecider(pyDecider.get());
    } else {
        pipe.setDecider(&automatic);
    }
    if (onLog) {
        py::function f = *onLog;
        QObject::connect(&pipe, &pipeline::Pipeline::logLine, [f](const QString &line) {
            py::gil_scoped_acquire acquire;
            try {
                f(toPy(line));
            } catch (py::error_already_set &e) {
                e.discard_as_unraisable("kwb log callback");
            }
        });
    }
    {
        py::gil_scoped_release release;
        pipe.runBlocking(&error);
    }
    if (pyDecider)
        pyDecider->rethrow();
    if (!error.isEmpty())
        throw std::runtime_error(error.toStdString());
    return PyRun{pipe.run(), pipe.runDirectory()};
}

} // namespace

PYBIND11_MODULE(kwb, m)
{
    m.doc() = "Kernel Workbench: runs, candidates, evaluation and the optimization pipeline.";

    py::class_<PyCandidate>(m, "Candidate", "One version of the kernel in a run's tree.")
        .def_property_readonly("id", [](const PyCandidate &p) { return p.c.id.toStdString(); })
        .def_property_readonly("parent_id", [](const PyCandidate &p) { return p.c.parentId.toStdString(); })
        .def_property_readonly("kind", [](const PyCandidate &p) { return toName(p.c.kind).toStdString(); })
        .def_property_readonly("label", [](const PyCandidate &p) { return p.c.label.toStdString(); })
        .def_property_readonly("status", [](const PyCandidate &p) { return toName(p.c.status).toStdString(); })
        .def_property_readonly("note", [](const PyCandidate &p) { return p.c.note.toStdString(); })
        .def_property_readonly("override_reason", [](const PyCandidate &p) { return p.c.overrideReason.toStdString(); })
        .def_property_readonly("exchange_ids", [](const PyCandidate &p) {
            std::vector<std::string> v;
            for (const auto &x : p.c.exchangeIds)
                v.push_back(x.toStdString());
            return v;
        })
        .def_property_readonly("eval", [](const PyCandidate &p) -> py::object {
            return p.c.eval ? py::object(toPy(json::toJson(*p.c.eval))) : py::object(py::none());
        }, "the evaluation result as a dict (status, reason, max_abs_err, candidate/eager/graph timings ...), or None")
        .def_property_readonly("verdicts", [](const PyCandidate &p) { return toPy(json::toJson(p.c.verdicts)); })
        .def_property_readonly("profile", [](const PyCandidate &p) -> py::object {
            const auto prof = p.c.shownProfile();
            if (!prof)
                return py::none();
            py::dict d = toPy(json::toJson(*prof));
            const Roofline r = rooflineOf(prof->metrics);
            d["roofline"] = r.isValid() ? py::object(py::str(r.details().toStdString())) : py::object(py::none());
            d["roofline_fraction"] = r.isValid() ? py::object(py::float_(r.fractionOfLimit())) : py::object(py::none());
            return d;
        }, "The Nsight Compute profile (metrics, note, seconds, device, roofline text and fraction of the binding roof) or None.")
        .def_property_readonly("is_correct", [](const PyCandidate &p) { return p.c.isCorrect(); })
        .def_property_readonly("eligible_for_best", [](const PyCandidate &p) { return p.c.isEligibleForBest(); })
        .def_property_readonly("median_ms", [](const PyCandidate &p) {
            return optionalNumber(p.c.eval ? p.c.eval->candidate.medianMs : NAN);
        })
        .def_property_readonly("speedup", [](const PyCandidate &p) {
            return optionalNumber(p.c.isCorrect() ? p.c.eval->speedupVsEager() : NAN);
        }, "speedup vs the eager reference (None when not correct or not timed)")
        .def_property_readonly("speedup_vs_graph", [](const PyCandidate &p) {
            return optionalNumber(p.c.isCorrect() ? p.c.eval->speedupVsGraph() : NAN);
        })
        .def_property_readonly("code", [](const PyCandidate &p) { return store::readCode(p.runDir, p.c).toStdString(); })
        .def_property_readonly("code_file", [](const PyCandidate &p) {
            return (p.runDir + QLatin1Char('/') + p.c.codeFile).toStdString();
        })
        .def("to_dict", [](const PyCandidate &p) { return toPy(json::toJson(p.c)); })
        .def("__repr__", [](const PyCandidate &p) {
            return QStringLiteral("<kwb.Candidate %1 %2 %3>").arg(p.c.id, p.c.label, toName(p.c.status)).toStdString();
        });

    py::class_<PyRun>(m, "Run", "A run directory: its info, candidate tree, LLM exchanges and gate decisions.")
        .def_property_readonly("directory", [](const PyRun &r) { return r.dir.toStdString(); })
        .def_property_readonly("info", [](const PyRun &r) { return toPy(json::toJson(r.run.info)); })
        .def_property_readonly("state", [](const PyRun &r) { return toName(r.run.info.state).toStdString(); })
        .def_property_readonly("candidates", &PyRun::candidates)
        .def_property_readonly("exchanges", [](const PyRun &r) {
            py::list l;
            for (const auto &x : r.run.exchanges)
                l.append(toPy(json::toJson(x)));
            return l;
        })
        .def_property_readonly("gates", [](const PyRun &r) {
            py::list l;
            for (const auto &g : r.run.gates)
                l.append(toPy(json::toJson(g)));
            return l;
        })
        .def("candidate", [](const PyRun &r, const std::string &id) { return r.candidate(QString::fromStdString(id)); },
             py::arg("id"), "the candidate with this id, or None")
        .def("children", [](const PyRun &r, const std::string &id) { return r.children(QString::fromStdString(id)); },
             py::arg("parent_id") = std::string(),
             "the candidates whose parent is parent_id ('' for the roots)")
        .def("best", &PyRun::best, "the selected best candidate, or None")
        .def("token_table", [](const PyRun &r) {
            py::list l;
            for (const auto &row : llm::tokenTable(r.run.exchanges)) {
                py::dict d;
                d["call_type"] = toPy(row.callType);
                d["input"] = row.input;
                d["output"] = row.output;
                d["total"] = row.total;
                d["cost_usd"] = row.costUsd;
                d["calls"] = row.calls;
                l.append(d);
            }
            return l;
        })
        .def("__len__", [](const PyRun &r) { return r.run.candidates.size(); })
        .def("__repr__", [](const PyRun &r) {
            return QStringLiteral("<kwb.Run %1 %2 candidates>").arg(r.run.info.id).arg(r.run.candidates.size()).toStdString();
        });

    m.def("open_run", &openRun, py::arg("path"), "Opens a run directory (raises ValueError with the store's error).");
    m.def("list_runs", [](const std::string &runsDir) {
        std::vector<std::string> v;
        for (const auto &d : store::listRuns(QString::fromStdString(runsDir)))
            v.push_back(d.toStdString());
        return v;
    }, py::arg("runs_dir"), "Run directories under runs_dir, newest first.");
    m.def("evaluate", &evaluate, py::arg("task"), py::arg("candidate"), py::arg("device") = "auto",
          py::arg("trials") = 5, py::arg("warmup") = 3, py::arg("repeat") = 0, py::arg("atol") = 1e-4,
          py::arg("rtol") = 1e-4, py::arg("timeout") = 600, py::arg("python") = std::string(),
          "Checks and times a candidate file against a task in an isolated worker (blocking); returns the result dict. "
          "repeat=0: the judge's own count of timed rounds (20 on a GPU, 15-45 on a CPU by the task's speed).");
    m.def("run_pipeline", &runPipeline, py::arg("task") = py::none(), py::kw_only(), py::arg("provider") = py::none(),
          py::arg("model") = py::none(), py::arg("base_url") = py::none(), py::arg("cassette") = py::none(),
          py::arg("lenient") = false, py::arg("seeds") = 2, py::arg("max_repairs") = 3, py::arg("threshold") = 1.0,
          py::arg("stages") = true, py::arg("detectors") = true, py::arg("profile") = true, py::arg("gates") = "none", py::arg("gate") = py::none(),
          py::arg("runs_dir") = py::none(), py::arg("device") = "auto", py::arg("trials") = 5, py::arg("warmup") = 3,
          py::arg("repeat") = 0, py::arg("resume") = py::none(), py::arg("on_log") = py::none(),
          py::arg("scripted_eval") = py::none(),
          R"(Runs the optimization pipeline headless and returns the Run.

scripted_eval=FILE (tests and demos only): no candidate runs; every evaluation is answered with the
status and figures that script states (the format of `kwb run`'s $KWB_SCRIPTED_EVAL).

gate(request: dict) is called at each gate that opens (gates='all' | 'failures'); it returns None or
'approve', another action name ('skip', 'stop'), or a dict {action, text, reason, candidate_id} for
edit_prompt, edit_code, reprompt, use_as_base and override.)");
}
