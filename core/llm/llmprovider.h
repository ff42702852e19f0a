// SPDX-License-Identifier: MIT
#pragma once

#include "llm/providerconfig.h"
#include "model/llmexchange.h"

#include <QList>
#include <QObject>
#include <QString>

#include <memory>

namespace kwb::llm {

/// What the pipeline asks of a provider: the conversation and the call type it is recorded under.
struct ChatRequest {
    QString callType; ///< e.g. "seed1", "seed2_repair1", "stage_grid"; replay matches on it
    QList<ChatMessage> messages;
    QString exchangeId; ///< optional: copied into LlmExchange::id
};

/// One call in flight. Emits deltas while the answer streams, `retrying` before a new attempt
/// (the streamed text then starts over), and `finished` exactly once, also after cancel().
/// Nothing is emitted before the event loop runs, so connect right after send(). A call that is
/// destroyed (or whose provider is) emits nothing more; delete it with deleteLater() from a slot.
class LlmCall : public QObject
{
    Q_OBJECT
public:
    explicit LlmCall(QObject *parent = nullptr);
    ~LlmCall() override;

    /// Stops the call at any moment; `finished` is emitted (synchronously) with error "cancelled".
    /// Does nothing once finished.
    void cancel();
    bool isFinished() const { return m_finished; }
    /// Filled when finished; before that it holds the request part (messages, call type, model).
    const LlmExchange &exchange() const { return m_exchange; }
    /// Blocking helper for the CLI and tests: spins a local event loop. False on timeout.
    bool waitForFinished(int timeoutMs = -1);

Q_SIGNALS:
    void delta(const QString &text); ///< answer text as it streams
    void reasoningDelta(const QString &text); ///< reasoning text (DeepSeek reasoning_content), kept apart
    /// A new attempt (number `attempt`, 2 for the first retry) starts in `delayMs`; text streamed so
    /// far is void and will be sent again.
    void retrying(int attempt, int delayMs, const QString &why);
    void finished(const kwb::LlmExchange &exchange); ///< exchange.error is empty on success

protected:
    /// Stops network or timer work without emitting anything.
    virtual void abortWork() = 0;
    /// Sets the final exchange and emits `finished` (only the first time).
    void finish(const LlmExchange &exchange);
    LlmExchange m_exchange;

private:
    bool m_finished = false;
};

/// A source of LLM answers. Asynchronous: send() returns at once; the call is a child of the provider.
class LlmProvider : public QObject
{
    Q_OBJECT
public:
    explicit LlmProvider(const ProviderConfig &config, QObject *parent = nullptr);
    const ProviderConfig &config() const { return m_config; }
    virtual LlmCall *send(const ChatRequest &request) = 0;

protected:
    ProviderConfig m_config;
};

/// Builds the provider for config.wire ("openai", "anthropic", "replay"); nullptr + error otherwise
/// (unknown wire, unreadable cassette). A missing key is not an error here: calls fail with a clear one.
std::unique_ptr<LlmProvider> createProvider(const ProviderConfig &config, QString *error = nullptr);

} // namespace kwb::llm
