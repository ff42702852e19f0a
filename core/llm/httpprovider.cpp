// SPDX-License-Identifier: MIT
#include "httpprovider.h"

#include "llm/tokens.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QRandomGenerator>

#include <cmath>

namespace kwb::llm {

namespace {
// A reply larger than this is not an LLM answer; stop reading instead of filling memory.
constexpr qsizetype kMaxBodyBytes = 64 * 1024 * 1024;
constexpr int kMaxBackoffMs = 60'000;
constexpr int kMaxRetryAfterMs = 300'000;

QString shortened(const QByteArray &bytes)
{
    QString s = QString::fromUtf8(bytes.left(300)).simplified();
    if (bytes.size() > 300)
        s += QStringLiteral("…");
    return s;
}
} // namespace

HttpProvider::HttpProvider(const ProviderConfig &config, QObject *parent)
    : LlmProvider(config, parent)
    , m_nam(new QNetworkAccessManager(this))
{
}

LlmCall *HttpProvider::send(const ChatRequest &request)
{
    return new HttpCall(m_config, m_nam, request, this);
}

HttpCall::HttpCall(const ProviderConfig &config, QNetworkAccessManager *nam, const ChatRequest &request,
                   QObject *parent)
    : LlmCall(parent)
    , m_config(config)
    , m_nam(nam)
{
    m_exchange.id = request.exchangeId;
    m_exchange.callType = request.callType;
    m_exchange.provider = config.name;
    m_exchange.model = config.model;
    m_exchange.messages = request.messages;
    m_exchange.promptHash = promptHash(request.messages);
    m_exchange.startedAt = QDateTime::currentDateTimeUtc();
    m_clock.start();
    m_idle.setSingleShot(true);
    connect(&m_idle, &QTimer::timeout, this, &HttpCall::onIdleTimeout);
    m_backoff.setSingleShot(true);
    connect(&m_backoff, &QTimer::timeout, this, &HttpCall::startAttempt);
    // Start on the next event-loop turn so the caller can connect to the signals first.
    QTimer::singleShot(0, this, &HttpCall::start);
}

void HttpCall::start()
{
    if (isFinished())
        return;
    QString keyError;
    m_key = apiKey(m_config, &keyError);
    if (m_key.isEmpty() && !keyError.isEmpty()) {
        fail(keyError);
        return;
    }
    startAttempt();
}

QByteArray HttpCall::requestBody() const
{
    QJsonObject body{{"model", m_config.model},
                     {"temperature", m_config.temperature},
                     {"max_tokens", m_config.maxTokens},
                     {"stream", m_config.stream}};
    QJsonArray messages;
    if (isAnthropic()) {
        QStringList system;
        for (const auto &m : m_exchange.messages) {
            if (m.role == QLatin1String("system"))
                system << m.content;
            else
                messages.append(QJsonObject{{"role", m.role}, {"content", m.content}});
        }
        if (!system.isEmpty())
            body.insert("system", system.join(QStringLiteral("\n\n")));
    } else {
        for (const auto &m : m_exchange.messages)
            messages.append(QJsonObject{{"role", m.role}, {"content", m.content}});
        if (m_config.stream)
            body.insert("stream_options", QJsonObject{{"include_usage", true}});
    }
    body.insert("messages", messages);
    return QJsonDocument(body).toJson(QJsonDocument::Compact);
}

void HttpCall::startAttempt()
{
    if (isFinished())
        return;
    ++m_attempt;
    m_sse = SseDecoder();
    m_sseMode = m_modeKnown = m_done = m_sawFinish = m_timedOut = false;
    m_streamError.clear();
    m_streamErrorRetryable = false;
    m_body.clear();
    m_text.clear();
    m_reasoning.clear();
    m_inputTokens = m_outputTokens = -1;

    QString base = m_config.baseUrl;
    while (base.endsWith(QLatin1Char('/')))
        base.chop(1);
    QUrl url;
    QNetworkRequest req;
    if (isAnthropic()) {
        url = QUrl(base + (base.endsWith(QLatin1String("/v1")) ? QStringLiteral("/messages")
                                                                : QStringLiteral("/v1/messages")));
        req.setRawHeader("anthropic-version", "2023-06-01");
        if (!m_key.isEmpty())
            req.setRawHeader("x-api-key", m_key.toUtf8());
    } else {
        url = QUrl(base + QStringLiteral("/chat/completions"));
        if (!m_key.isEmpty())
            req.setRawHeader("Authorization", "Bearer " + m_key.toUtf8());
    }
    req.setUrl(url);
    req.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
    req.setRawHeader("Accept", m_config.stream ? "text/event-stream" : "application/json");
    req.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::NoLessSafeRedirectPolicy);
    // The idle timer below is the timeout; Qt's own transfer timeout would not see mid-stream stalls.
    req.setTransferTimeout(0);

    m_reply = m_nam->post(req, requestBody());
    connect(m_reply, &QNetworkReply::readyRead, this, &HttpCall::onReadyRead);
    connect(m_reply, &QNetworkReply::finished, this, &HttpCall::onReplyFinished);
    m_idle.start(std::max(1, m_config.timeoutSec) * 1000);
}

void HttpCall::onReadyRead()
{
    if (!m_reply)
        return;
    m_idle.start(std::max(1, m_config.timeoutSec) * 1000);
    const QByteArray bytes = m_reply->readAll();
    const int status = m_reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    if (!m_modeKnown) {
        m_modeKnown = true;
        const QString type = m_reply->header(QNetworkRequest::ContentTypeHeader).toString();
        m_sseMode = status >= 200 && status < 300 && type.contains(QLatin1String("text/event-stream"));
    }
    if (!m_sseMode) {
        m_body += bytes;
        if (m_body.size() > kMaxBodyBytes) {
            dropReply();
            fail(QStringLiteral("the response is larger than %1 MB; giving up").arg(kMaxBodyBytes >> 20));
        }
        return;
    }
    for (const auto &e : m_sse.feed(bytes)) {
        if (isFinished())
            return; // cancelled from a slot of a delta emitted just now
        handleEvent(e);
    }
    if (m_text.size() + m_reasoning.size() > kMaxBodyBytes) {
        dropReply();
        fail(QStringLiteral("the streamed answer is larger than %1 MB; giving up").arg(kMaxBodyBytes >> 20));
    }
}

void HttpCall::handleEvent(const SseEvent &e)
{
    if (!m_streamError.isEmpty() || isFinished())
        return;
    const QString data = e.data.trimmed();
    if (data == QLatin1String("[DONE]")) {
        m_done = true;
        return;
    }
    QJsonParseError pe;
    const QJsonDocument doc = QJsonDocument::fromJson(data.toUtf8(), &pe);
    if (pe.error != QJsonParseError::NoError || !doc.isObject()) {
        m_streamError = QStringLiteral("malformed stream event (not JSON: %1): %2")
                            .arg(pe.errorString(), shortened(data.toUtf8()));
        return;
    }
    const QJsonObject o = doc.object();
    if (o.value("error").isObject() || o.value("type").toString() == QLatin1String("error")) {
        const QJsonObject err = o.value("error").toObject();
        const QString type = err.value("type").toString();
        m_streamError = QStringLiteral("the server reported an error in the stream: %1")
                            .arg(err.value("message").toString(type));
        m_streamErrorRetryable = type == QLatin1String("overloaded_error") || type == QLatin1String("api_error")
            || type == QLatin1String("rate_limit_error");
        return;
    }
    if (isAnthropic()) {
        const QString type = o.value("type").toString(e.event);
        if (type == QLatin1String("message_start")) {
            const QJsonObject usage = o.value("message").toObject().value("usage").toObject();
            if (usage.contains("input_tokens"))
                m_inputTokens = usage.value("input_tokens").toInt();
            if (usage.contains("output_tokens"))
                m_outputTokens = usage.value("output_tokens").toInt();
        } else if (type == QLatin1String("content_block_delta")) {
            const QJsonObject d = o.value("delta").toObject();
            const QString dt = d.value("type").toString();
            if (dt == QLatin1String("text_delta")) {
                const QString t = d.value("text").toString();
                m_text += t;
                if (!t.isEmpty())
                    Q_EMIT delta(t);
            } else if (dt == QLatin1String("thinking_delta")) {
                const QString t = d.value("thinking").toString();
                m_reasoning += t;
                if (!t.isEmpty())
                    Q_EMIT reasoningDelta(t);
            }
        } else if (type == QLatin1String("message_delta")) {
            const QJsonObject usage = o.value("usage").toObject();
            if (usage.contains("output_tokens"))
                m_outputTokens = usage.value("output_tokens").toInt();
            if (usage.contains("input_tokens"))
                m_inputTokens = usage.value("input_tokens").toInt();
            if (!o.value("delta").toObject().value("stop_reason").isNull())
                m_sawFinish = true;
        } else if (type == QLatin1String("message_stop")) {
            m_done = true;
        }
        return;
    }
    const QJsonArray choices = o.value("choices").toArray();
    if (!choices.isEmpty()) {
        const QJsonObject c = choices.first().toObject();
        const QJsonObject d = c.value("delta").toObject();
        // DeepSeek sends reasoning_content; OpenRouter and vLLM call it reasoning.
        const QString r = d.value("reasoning_content").toString(d.value("reasoning").toString());
        if (!r.isEmpty()) {
            m_reasoning += r;
            Q_EMIT reasoningDelta(r);
        }
        const QString t = d.value("content").toString();
        if (!t.isEmpty() && !isFinished()) {
            m_text += t;
            Q_EMIT delta(t);
        }
        if (!c.value("finish_reason").isNull() && !c.value("finish_reason").isUndefined())
            m_sawFinish = true;
    }
    const QJsonObject usage = o.value("usage").toObject();
    if (!usage.isEmpty()) {
        m_inputTokens = usage.value("prompt_tokens").toInt(m_inputTokens);
        m_outputTokens = usage.value("completion_tokens").toInt(m_outputTokens);
    }
}

bool HttpCall::parseBody(const QByteArray &body, QString *why)
{
    QJsonParseError pe;
    const QJsonDocument doc = QJsonDocument::fromJson(body, &pe);
    if (pe.error != QJsonParseError::NoError || !doc.isObject()) {
        *why = body.trimmed().isEmpty()
            ? QStringLiteral("the server sent an empty body")
            : QStringLiteral("malformed response body (not JSON: %1 at offset %2): %3")
                  .arg(pe.errorString())
                  .arg(pe.offset)
                  .arg(shortened(body));
        return false;
    }
    const QJsonObject o = doc.object();
    if (o.value("error").isObject()) {
        *why = QStringLiteral("the server reported an error: %1")
                   .arg(o.value("error").toObject().value("message").toString());
        return false;
    }
    if (isAnthropic()) {
        for (const auto &v : o.value("content").toArray()) {
            const QJsonObject block = v.toObject();
            if (block.value("type").toString() == QLatin1String("text"))
                m_text += block.value("text").toString();
            else if (block.value("type").toString() == QLatin1String("thinking"))
                m_reasoning += block.value("thinking").toString();
        }
        const QJsonObject usage = o.value("usage").toObject();
        if (usage.contains("input_tokens"))
            m_inputTokens = usage.value("input_tokens").toInt();
        if (usage.contains("output_tokens"))
            m_outputTokens = usage.value("output_tokens").toInt();
        if (!o.contains("content")) {
            *why = QStringLiteral("malformed response body (no \"content\"): %1").arg(shortened(body));
            return false;
        }
        return true;
    }
    const QJsonArray choices = o.value("choices").toArray();
    if (choices.isEmpty()) {
        *why = QStringLiteral("malformed response body (no \"choices\"): %1").arg(shortened(body));
        return false;
    }
    const QJsonObject msg = choices.first().toObject().value("message").toObject();
    m_text = msg.value("content").toString();
    m_reasoning = msg.value("reasoning_content").toString(msg.value("reasoning").toString());
    const QJsonObject usage = o.value("usage").toObject();
    if (!usage.isEmpty()) {
        m_inputTokens = usage.value("prompt_tokens").toInt(-1);
        m_outputTokens = usage.value("completion_tokens").toInt(-1);
    }
    return true;
}

QString HttpCall::serverMessage(const QByteArray &body) const
{
    const QJsonObject o = QJsonDocument::fromJson(body).object();
    QString msg = o.value("error").toObject().value("message").toString();
    if (msg.isEmpty())
        msg = o.value("error").toString(o.value("message").toString());
    if (msg.isEmpty())
        msg = shortened(body);
    return msg;
}

void HttpCall::onIdleTimeout()
{
    if (!m_reply)
        return;
    m_timedOut = true;
    m_reply->abort(); // finished() follows, synchronously, and decides on a retry
}

void HttpCall::onReplyFinished()
{
    QNetworkReply *reply = m_reply;
    if (!reply || isFinished())
        return;
    m_idle.stop();
    m_reply = nullptr;
    reply->deleteLater();
    if (reply->bytesAvailable() > 0) {
        // Data that arrived with the end of the reply.
        const QByteArray rest = reply->readAll();
        if (m_sseMode)
            for (const auto &e : m_sse.feed(rest))
                handleEvent(e);
        else
            m_body += rest;
        if (isFinished())
            return;
    }
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    const auto netError = reply->error();

    if (m_timedOut) {
        retryOrFail(QStringLiteral("no data from %1 for %2 s (timeout)").arg(m_config.name).arg(m_config.timeoutSec),
                    -1);
        return;
    }
    if (status == 0) {
        retryOrFail(QStringLiteral("network error reaching %1: %2").arg(reply->url().host(), reply->errorString()),
                    -1);
        return;
    }
    if (status == 429 || status >= 500) {
        int retryAfterMs = -1;
        const QByteArray ra = reply->rawHeader("Retry-After").trimmed();
        if (!ra.isEmpty()) {
            bool ok = false;
            const double secs = ra.toDouble(&ok);
            if (ok) {
                retryAfterMs = static_cast<int>(std::min<double>(secs * 1000, kMaxRetryAfterMs));
            } else {
                const QDateTime when = QDateTime::fromString(QString::fromLatin1(ra), Qt::RFC2822Date);
                if (when.isValid())
                    retryAfterMs = static_cast<int>(std::clamp<qint64>(
                        QDateTime::currentDateTimeUtc().msecsTo(when), 0, kMaxRetryAfterMs));
            }
        }
        const QString what = status == 429 ? QStringLiteral("rate limited") : QStringLiteral("server error");
        retryOrFail(QStringLiteral("%1 (HTTP %2): %3").arg(what).arg(status).arg(serverMessage(m_body)),
                    retryAfterMs);
        return;
    }
    if (status == 401 || status == 403) {
        const QString where = m_config.apiKeyEnv.isEmpty()
            ? QString()
            : QStringLiteral("; check $%1 or keys.json").arg(m_config.apiKeyEnv);
        fail(QStringLiteral("authentication failed at %1 (HTTP %2): %3%4")
                 .arg(m_config.name)
                 .arg(status)
                 .arg(serverMessage(m_body), where));
        return;
    }
    if (status == 404) {
        fail(QStringLiteral("not found (HTTP 404) at %1: unknown model '%2' or wrong base URL (%3): %4")
                 .arg(m_config.name, m_config.model, m_config.baseUrl, serverMessage(m_body)));
        return;
    }
    if (status >= 400) {
        fail(QStringLiteral("%1 rejected the request (HTTP %2): %3")
                 .arg(m_config.name)
                 .arg(status)
                 .arg(serverMessage(m_body)));
        return;
    }
    if (netError != QNetworkReply::NoError) {
        retryOrFail(QStringLiteral("transfer from %1 failed: %2").arg(m_config.name, reply->errorString()), -1);
        return;
    }
    if (m_sseMode) {
        for (const auto &e : m_sse.finish())
            handleEvent(e);
        if (isFinished())
            return; // cancelled from a slot while the last events were handled
        if (!m_streamError.isEmpty()) {
            if (m_streamErrorRetryable)
                retryOrFail(m_streamError, -1);
            else
                fail(m_streamError);
            return;
        }
        if (!m_done && !m_sawFinish) {
            retryOrFail(QStringLiteral("the stream from %1 ended before the answer was complete (truncated after "
                                       "%2 characters)")
                            .arg(m_config.name)
                            .arg(m_text.size()),
                        -1);
            return;
        }
    } else {
        QString why;
        if (!parseBody(m_body, &why)) {
            fail(why);
            return;
        }
    }
    if (m_text.trimmed().isEmpty()) {
        fail(m_reasoning.isEmpty() ? QStringLiteral("%1 returned an empty answer").arg(m_config.name)
                                   : QStringLiteral("%1 returned reasoning but no answer text").arg(m_config.name));
        return;
    }
    succeed();
}

void HttpCall::retryOrFail(const QString &why, int retryAfterMs)
{
    if (m_attempt > m_config.maxRetries) {
        fail(m_attempt > 1 ? QStringLiteral("%1 (gave up after %2 attempts)").arg(why).arg(m_attempt) : why);
        return;
    }
    int delayMs = retryAfterMs;
    if (delayMs < 0) {
        const double base = std::max(1, m_config.retryBaseDelayMs) * std::pow(2.0, m_attempt - 1);
        const double jitter = 0.75 + 0.5 * QRandomGenerator::global()->generateDouble();
        delayMs = static_cast<int>(std::min<double>(base * jitter, kMaxBackoffMs));
    }
    Q_EMIT retrying(m_attempt + 1, delayMs, redact(why, m_key));
    if (!isFinished()) // a slot may have cancelled the call
        m_backoff.start(delayMs);
}

void HttpCall::fail(const QString &why)
{
    LlmExchange x = m_exchange;
    x.error = redact(why, m_key);
    x.response = redact(m_text, m_key);
    x.reasoning = redact(m_reasoning, m_key);
    x.durationMs = m_clock.elapsed();
    m_key.clear();
    finish(x);
}

void HttpCall::succeed()
{
    LlmExchange x = m_exchange;
    x.response = redact(m_text, m_key);
    x.reasoning = redact(m_reasoning, m_key);
    x.tokensEstimated = m_inputTokens < 0 || m_outputTokens < 0;
    x.inputTokens = m_inputTokens >= 0 ? m_inputTokens : estimateTokens(x.messages);
    x.outputTokens = m_outputTokens >= 0 ? m_outputTokens : estimateTokens(m_text) + estimateTokens(m_reasoning);
    x.costUsd = costUsd(m_config, x.inputTokens, x.outputTokens);
    x.durationMs = m_clock.elapsed();
    m_key.clear();
    finish(x);
}

void HttpCall::dropReply()
{
    m_idle.stop();
    if (QNetworkReply *reply = m_reply) {
        m_reply = nullptr;
        reply->disconnect(this);
        reply->abort();
        reply->deleteLater();
    }
}

void HttpCall::abortWork()
{
    m_backoff.stop();
    dropReply();
    m_key.clear();
}

} // namespace kwb::llm
