// SPDX-License-Identifier: MIT
#include "llmprovider.h"

#include "httpprovider.h"
#include "replayprovider.h"

#include <QEventLoop>
#include <QTimer>

namespace kwb::llm {

LlmCall::LlmCall(QObject *parent)
    : QObject(parent)
{
}

LlmCall::~LlmCall() = default;

void LlmCall::cancel()
{
    if (m_finished)
        return;
    abortWork();
    LlmExchange x = m_exchange;
    x.error = QStringLiteral("cancelled");
    finish(x);
}

bool LlmCall::waitForFinished(int timeoutMs)
{
    if (m_finished)
        return true;
    QEventLoop loop;
    connect(this, &LlmCall::finished, &loop, &QEventLoop::quit);
    QTimer timer;
    if (timeoutMs >= 0) {
        timer.setSingleShot(true);
        connect(&timer, &QTimer::timeout, &loop, &QEventLoop::quit);
        timer.start(timeoutMs);
    }
    loop.exec();
    return m_finished;
}

void LlmCall::finish(const LlmExchange &exchange)
{
    if (m_finished)
        return;
    m_finished = true;
    m_exchange = exchange;
    Q_EMIT finished(m_exchange);
}

LlmProvider::LlmProvider(const ProviderConfig &config, QObject *parent)
    : QObject(parent)
    , m_config(config)
{
}

std::unique_ptr<LlmProvider> createProvider(const ProviderConfig &config, QString *error)
{
    if (config.wire == QLatin1String("openai") || config.wire == QLatin1String("anthropic")) {
        if (config.baseUrl.isEmpty()) {
            if (error)
                *error = QStringLiteral("provider '%1' has no base URL").arg(config.name);
            return nullptr;
        }
        return std::make_unique<HttpProvider>(config);
    }
    if (config.wire == QLatin1String("replay")) {
        auto p = std::make_unique<ReplayProvider>(config);
        if (!p->isValid()) {
            if (error)
                *error = p->loadError();
            return nullptr;
        }
        return p;
    }
    if (error)
        *error = QStringLiteral("provider '%1': unknown wire format '%2' (expected openai, anthropic or replay)")
                     .arg(config.name, config.wire);
    return nullptr;
}

} // namespace kwb::llm
