// SPDX-License-Identifier: MIT
#pragma once

// Shared pieces of the suite tests: the loopback suite LLM server (suite_llm_server.py), a config
// folder whose providers.json points "fake" at it, and `kwb suite` as a real process.

#include "suite/suite.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>

namespace kwb::test {

inline QString testPython()
{
    const QString p = qEnvironmentVariable("KWB_TEST_PYTHON");
    return p.isEmpty() ? QStringLiteral("/usr/bin/python3") : p;
}

class SuiteServer
{
public:
    /// `rules`: task-source substring -> copy | broken | hang | crash | nocode.
    explicit SuiteServer(const QJsonObject &rules = {}, int delayMs = 0)
    {
        auto env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("FAKE_SUITE_RULES"), QString::fromUtf8(QJsonDocument(rules).toJson(QJsonDocument::Compact)));
        env.insert(QStringLiteral("FAKE_LLM_DELAY_MS"), QString::number(delayMs));
        m_process.setProcessEnvironment(env);
        m_process.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        m_process.start(testPython(), {QStringLiteral(KWB_SOURCE_DIR "/tests/core/suite/suite_llm_server.py")});
        if (!m_process.waitForStarted(10000))
            return;
        while (!m_process.canReadLine() && m_process.waitForReadyRead(10000)) {
        }
        m_port = m_process.readLine().trimmed().toInt();
        QJsonObject provider{{"name", "fake"},     {"wire", "openai"},  {"base_url", QStringLiteral("http://127.0.0.1:%1/v1").arg(m_port)},
                             {"model", "suite"},   {"api_key_env", ""}, {"max_retries", 0},
                             {"timeout_sec", 60},  {"stream", true}};
        QDir().mkpath(m_config.path());
        QFile f(m_config.filePath(QStringLiteral("providers.json")));
        f.open(QIODevice::WriteOnly);
        f.write(QJsonDocument(QJsonObject{{"providers", QJsonArray{provider}}}).toJson());
    }
    ~SuiteServer()
    {
        m_process.kill();
        m_process.waitForFinished(5000);
    }
    int port() const { return m_port; }
    QString configDir() const { return m_config.path(); }

    /// The environment for a `kwb` process that uses this server as provider "fake".
    QProcessEnvironment environment(const QString &runsDir) const
    {
        auto env = QProcessEnvironment::systemEnvironment();
        for (const auto &k : env.keys())
            if (k.endsWith(QLatin1String("_API_KEY")))
                env.remove(k);
        env.insert(QStringLiteral("KWB_CONFIG_DIR"), m_config.path());
        env.insert(QStringLiteral("KWB_PROVIDER"), QStringLiteral("fake"));
        env.insert(QStringLiteral("KWB_RUNS_DIR"), runsDir);
        env.insert(QStringLiteral("KWB_PYTHON"), testPython());
        return env;
    }

private:
    QTemporaryDir m_config;
    QProcess m_process;
    int m_port = 0;
};

/// The script that answers `kwb suite`'s evaluations when a test sets $KWB_SCRIPTED_EVAL to it: the
/// suite's states and verdicts then follow the answers, never a CPU clock (suite_llm_server.py's copy
/// is correct at 0.5 ms, broken a syntax error, crash a crash, hang a run timeout).
inline QString suiteEvalScript()
{
    return QStringLiteral(KWB_TEST_DATA "/suite/scripted_eval.json");
}

/// Quick pipeline settings for the small CPU tasks: one seed, one repair, no analysis, no stages.
inline QStringList quickSuiteArgs()
{
    return {QStringLiteral("--provider"), QStringLiteral("fake"), QStringLiteral("--device"), QStringLiteral("cpu"),
            QStringLiteral("--seeds"), QStringLiteral("1"), QStringLiteral("--max-repairs"), QStringLiteral("1"),
            QStringLiteral("--threshold"), QStringLiteral("0"), QStringLiteral("--no-stages"),
            QStringLiteral("--trials"), QStringLiteral("2"), QStringLiteral("--repeat"), QStringLiteral("5")};
}

inline const suite::SuiteEntry *entryNamed(const suite::Suite &s, const QString &task)
{
    for (const auto &e : s.entries)
        if (e.taskName == task)
            return &e;
    return nullptr;
}

} // namespace kwb::test
