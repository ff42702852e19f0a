// SPDX-License-Identifier: MIT
#pragma once

// Starts tests/core/llm/fake_llm_server.py with $KWB_TEST_PYTHON (else /usr/bin/python3) and
// reads the port it prints first.

#include <QProcess>
#include <QProcessEnvironment>
#include <QString>

namespace kwb::test {

class FakeLlmServer
{
public:
    explicit FakeLlmServer(const QProcessEnvironment &env = QProcessEnvironment::systemEnvironment())
    {
        QString python = qEnvironmentVariable("KWB_TEST_PYTHON");
        if (python.isEmpty())
            python = QStringLiteral("/usr/bin/python3");
        m_process.setProcessEnvironment(env);
        m_process.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        m_process.start(python, {QStringLiteral(KWB_SOURCE_DIR "/tests/core/llm/fake_llm_server.py")});
        if (!m_process.waitForStarted(10000))
            return;
        while (!m_process.canReadLine() && m_process.waitForReadyRead(10000)) {
        }
        m_port = m_process.readLine().trimmed().toInt();
    }
    ~FakeLlmServer()
    {
        m_process.kill();
        m_process.waitForFinished(5000);
    }
    int port() const { return m_port; }
    QString openaiUrl() const { return QStringLiteral("http://127.0.0.1:%1/v1").arg(m_port); }
    QString anthropicUrl() const { return QStringLiteral("http://127.0.0.1:%1").arg(m_port); }

private:
    QProcess m_process;
    int m_port = 0;
};

} // namespace kwb::test
