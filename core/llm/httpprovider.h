// SPDX-License-Identifier: MIT
#pragma once

// Private to kwb_llm: the HTTP providers (OpenAI-compatible Chat Completions and Anthropic
// Messages). Use createProvider().

#include "llm/llmprovider.h"
#include "llm/ssedecoder.h"

#include <QElapsedTimer>
#include <QPointer>
#include <QTimer>

class QNetworkAccessManager;
class QNetworkReply;

namespace kwb::llm {

/// OpenAI-compatible or Anthropic provider over one QNetworkAccessManager.
class HttpProvider : public LlmProvider
{
    Q_OBJECT
public:
    explicit HttpProvider(const ProviderConfig &config, QObject *parent = nullptr);
    LlmCall *send(const ChatRequest &request) override;

private:
    QNetworkAccessManager *m_nam;
};

/// One HTTP call: attempts, backoff, idle timeout, streaming decode.
class HttpCall : public LlmCall
{
    Q_OBJECT
public:
    HttpCall(const ProviderConfig &config, QNetworkAccessManager *nam, const ChatRequest &request,
             QObject *parent);

protected:
    void abortWork() override;

private:
    enum class Outcome { Success, Retry, Fail };
    bool isAnthropic() const { return m_config.wire == QLatin1String("anthropic"); }
    void start();
    void startAttempt();
    void onReadyRead();
    void onReplyFinished();
    void onIdleTimeout();
    void handleEvent(const SseEvent &e);
    bool parseBody(const QByteArray &body, QString *why);
    QByteArray requestBody() const;
    void retryOrFail(const QString &why, int retryAfterMs);
    void fail(const QString &why);
    void succeed();
    QString serverMessage(const QByteArray &body) const;
    void dropReply();

    ProviderConfig m_config;
    QNetworkAccessManager *m_nam;
    QString m_key; ///< never copied into the exchange, a message or a log
    QPointer<QNetworkReply> m_reply;
    QTimer m_idle;
    QTimer m_backoff;
    QElapsedTimer m_clock;
    int m_attempt = 0;

    // Per attempt.
    SseDecoder m_sse;
    bool m_sseMode = false;
    bool m_modeKnown = false;
    bool m_done = false; ///< [DONE] or message_stop seen
    bool m_sawFinish = false; ///< finish_reason / stop_reason seen
    bool m_timedOut = false;
    QString m_streamError; ///< an error event inside the stream
    bool m_streamErrorRetryable = false;
    QByteArray m_body;
    QString m_text;
    QString m_reasoning;
    int m_inputTokens = -1;
    int m_outputTokens = -1;
};

} // namespace kwb::llm
