// SPDX-License-Identifier: MIT
#pragma once

// Shared pieces of the pipeline tests: the scripted loopback LLM server (the llm tests' fake server
// plus a "script" scenario), the scripted evaluator's figures for the answer files, pipeline settings
// for the small CPU task, tree signatures, and keeping a failed test's runs (../../keptruns.h).

#include "../../keptruns.h"
#include "eval/scriptedevaluator.h"
#include "llm/providerconfig.h"
#include "model/run.h"
#include "pipeline/pipeline.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QStringList>
#include <QTemporaryDir>

namespace kwb::test {

inline QString pipelineData(const QString &name)
{
    return QStringLiteral(KWB_TEST_DATA "/pipeline/relu/") + name + QStringLiteral(".md");
}

inline QString readText(const QString &path)
{
    QFile f(path);
    f.open(QIODevice::ReadOnly);
    return QString::fromUtf8(f.readAll());
}

/// tests/core/pipeline/scripted_llm_server.py on 127.0.0.1; answers come from NAME.json files in dir().
class ScriptedServer
{
public:
    ScriptedServer()
    {
        QString python = qEnvironmentVariable("KWB_TEST_PYTHON");
        if (python.isEmpty())
            python = QStringLiteral("/usr/bin/python3");
        auto env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("FAKE_LLM_SCRIPT_DIR"), m_dir.path());
        m_process.setProcessEnvironment(env);
        m_process.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        m_process.start(python, {QStringLiteral(KWB_SOURCE_DIR "/tests/core/pipeline/scripted_llm_server.py")});
        if (!m_process.waitForStarted(10000))
            return;
        while (!m_process.canReadLine() && m_process.waitForReadyRead(10000)) {
        }
        m_port = m_process.readLine().trimmed().toInt();
    }
    ~ScriptedServer()
    {
        m_process.kill();
        m_process.waitForFinished(5000);
    }
    int port() const { return m_port; }
    QString dir() const { return m_dir.path(); }

    /// The answers for model "script:NAME", from test-data answer files (names without .md).
    void script(const QString &name, const QStringList &answerFiles)
    {
        QJsonArray a;
        for (const auto &f : answerFiles)
            a.append(readText(pipelineData(f)));
        QFile out(m_dir.filePath(name + QStringLiteral(".json")));
        out.open(QIODevice::WriteOnly);
        out.write(QJsonDocument(a).toJson());
    }
    /// The requests the server saw for NAME (each a JSON object {n, messages}).
    QList<QJsonObject> requests(const QString &name) const
    {
        QList<QJsonObject> out;
        QFile f(m_dir.filePath(name + QStringLiteral(".requests.jsonl")));
        if (f.open(QIODevice::ReadOnly))
            for (const auto &line : f.readAll().split('\n'))
                if (!line.trimmed().isEmpty())
                    out.append(QJsonDocument::fromJson(line).object());
        return out;
    }

    llm::ProviderConfig provider(const QString &name) const
    {
        llm::ProviderConfig c;
        c.name = QStringLiteral("fake");
        c.wire = QStringLiteral("openai");
        c.baseUrl = QStringLiteral("http://127.0.0.1:%1/v1").arg(m_port);
        c.model = QStringLiteral("script:") + name;
        c.stream = true;
        c.timeoutSec = 30;
        c.maxRetries = 0;
        return c;
    }

private:
    QTemporaryDir m_dir;
    QProcess m_process;
    int m_port = 0;
};

/// What the answer files (tests/data/pipeline/relu/*.md) get from the scripted evaluator: stated, so the
/// pipeline's decisions come out the same on every machine (a real CPU judge may refuse an honest
/// one-pass clamp now and then, and then a slow loop wins against a slower loop by a hair). Eager
/// 1 ms: the one-pass clamp scores 20x, the loops 0.1x and 0.05x (below the default threshold of 1).
inline void scriptReluAnswers(ScriptedEvaluator &ev)
{
    ev.setBaseline(1.0);
    ev.addFailure(QStringLiteral("x.relu_kernel()"), EvalStatus::RuntimeError, // seed_broken
                  QStringLiteral("AttributeError at candidate.py:11: 'Tensor' object has no attribute 'relu_kernel'"));
    ev.addFailure(QStringLiteral("x.clamp(min=0.1)"), EvalStatus::WrongResult, // wrong
                  QStringLiteral("trial 0: max abs err 0.1 beyond atol 1e-4 + rtol 1e-4 * |ref|"));
    ev.addCorrect(QStringLiteral("torch.where(piece > 0"), 20.0); // repair_where_loop: a where per 64 elements
    ev.addCorrect(QStringLiteral("x[i, j:j + 64].clamp(min=0)"), 10.0); // seed_loop: a clamp per 64 elements
    ev.addCorrect(QStringLiteral("return x.clamp(min=0.0)"), 0.05); // fast_clamp: one pass
}

/// The small CPU task with quick evaluation settings.
inline pipeline::PipelineConfig reluConfig(const QString &runsDir)
{
    pipeline::PipelineConfig cfg;
    cfg.taskFile = QStringLiteral(KWB_SOURCE_DIR "/tasks/level1/1_ReLU.py");
    cfg.runsDir = runsDir;
    cfg.eval.device = QStringLiteral("cpu");
    cfg.eval.trials = 2;
    cfg.eval.warmup = 1;
    cfg.eval.repeat = 7;
    cfg.eval.integrity = true;
    cfg.scoreThreshold = 1.0; // the default: the scripted seeds score 0.1x and 0.05x, so each gets its analysis
    cfg.gatePolicy = pipeline::GatePolicy::None;
    return cfg;
}

/// label|kind|parent label|status: what must be the same when a recorded run is replayed.
inline QStringList treeSignature(const Run &run)
{
    QStringList out;
    for (const auto &c : run.candidates) {
        const Candidate *p = run.candidate(c.parentId);
        out << QStringLiteral("%1|%2|%3|%4").arg(c.label, toName(c.kind), p ? p->label : QString(),
                                                 c.eval ? toName(c.eval->status) + QLatin1Char('/') + toName(c.status)
                                                        : toName(c.status));
    }
    return out;
}

inline const Candidate *byLabel(const Run &run, const QString &label)
{
    for (const auto &c : run.candidates)
        if (c.label == label)
            return &c;
    return nullptr;
}

} // namespace kwb::test
