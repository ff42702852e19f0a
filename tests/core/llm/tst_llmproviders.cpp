// SPDX-License-Identifier: MIT
// The HTTP providers against a real loopback server: streaming split anywhere, retries,
// timeouts, cancellation, malformed and huge bodies, errors, Anthropic's wire format.
#include "fakellmserver.h"
#include "llm/llmprovider.h"
#include "llm/tokens.h"
#include "prompts/extraction.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>

using namespace kwb;
using namespace kwb::llm;

namespace {
const QString kAnswer = QString::fromUtf8("Here is the kernel — fused, résumé ✓ 🚀:\n"
                                          "```python\n"
                                          "import torch\n"
                                          "import torch.nn as nn\n\n"
                                          "class ModelNew(nn.Module):\n"
                                          "    def forward(self, x):\n"
                                          "        return x * 2  # ünïcödé 日本語\n"
                                          "```\n"
                                          "Done.");
const QString kReasoning = QString::fromUtf8("Think: the GRU is launch-bound → fuse the time loop. 思考");
} // namespace

class TstLlmProviders : public QObject
{
    Q_OBJECT

private:
    std::unique_ptr<test::FakeLlmServer> m_server;
    QTemporaryDir m_config;
    int m_tag = 0;

    ProviderConfig config(const QString &scenario, bool stream = true, const QString &wire = QStringLiteral("openai"))
    {
        ProviderConfig c;
        c.name = QStringLiteral("fake");
        c.wire = wire;
        c.baseUrl = wire == QLatin1String("anthropic") ? m_server->anthropicUrl() : m_server->openaiUrl();
        // The tag gives every test its own request counter in the server (429 then ok ...).
        c.model = QStringLiteral("%1:%2").arg(scenario).arg(++m_tag);
        c.stream = stream;
        c.timeoutSec = 10;
        c.maxRetries = 2;
        c.retryBaseDelayMs = 20;
        c.apiKeyEnv = QStringLiteral("KWB_TEST_FAKE_LLM_KEY");
        c.inputUsdPerMTok = 1.0;
        c.outputUsdPerMTok = 2.0;
        return c;
    }

    static ChatRequest request()
    {
        return {QStringLiteral("seed1"),
                {{QStringLiteral("system"), QStringLiteral("You write Triton kernels.")},
                 {QStringLiteral("user"), QStringLiteral("Write ModelNew for 39_GRU.")}},
                QStringLiteral("x0001")};
    }

    struct Result {
        LlmExchange x;
        QStringList deltas;
        QStringList reasoning;
        QList<QList<QVariant>> retries;
        int finishedCount = 0;
    };

    Result run(const ProviderConfig &c, int waitMs = 30000)
    {
        QString error;
        auto provider = createProvider(c, &error);
        Result r;
        if (!provider) {
            r.x.error = error;
            return r;
        }
        LlmCall *call = provider->send(request());
        connect(call, &LlmCall::delta, this, [&r](const QString &t) { r.deltas << t; });
        connect(call, &LlmCall::reasoningDelta, this, [&r](const QString &t) { r.reasoning << t; });
        QSignalSpy finished(call, &LlmCall::finished);
        QSignalSpy retrying(call, &LlmCall::retrying);
        if (!finished.wait(waitMs))
            qWarning("call did not finish in %d ms", waitMs);
        r.finishedCount = finished.count();
        r.x = call->exchange();
        for (const auto &args : retrying)
            r.retries.append(args);
        return r;
    }

private Q_SLOTS:
    void initTestCase()
    {
        qputenv("KWB_CONFIG_DIR", m_config.path().toUtf8()); // never the developer's keys.json
        qputenv("KWB_TEST_FAKE_LLM_KEY", "kwb-test-key-1234567890");
        m_server = std::make_unique<test::FakeLlmServer>();
        QVERIFY2(m_server->port() > 0, "fake_llm_server.py did not start (KWB_TEST_PYTHON?)");
    }

    void streamSplitAnywhere()
    {
        const Result r = run(config(QStringLiteral("ok")));
        QCOMPARE(r.finishedCount, 1);
        QVERIFY2(r.x.error.isEmpty(), qPrintable(r.x.error));
        QCOMPARE(r.x.response, kAnswer); // multi-byte characters survived every split
        QVERIFY(r.deltas.size() > 5);
        QCOMPARE(r.deltas.join(QString()), kAnswer);
        QCOMPARE(r.x.inputTokens, 123); // from the final usage chunk
        QCOMPARE(r.x.outputTokens, 45);
        QVERIFY(!r.x.tokensEstimated);
        QCOMPARE(r.x.costUsd, (123 * 1.0 + 45 * 2.0) / 1e6);
        QCOMPARE(r.x.callType, QStringLiteral("seed1"));
        QCOMPARE(r.x.id, QStringLiteral("x0001"));
        QCOMPARE(r.x.promptHash, promptHash(request().messages));
        QVERIFY(r.x.startedAt.isValid());
        QVERIFY(r.retries.isEmpty());
    }

    void nonStreaming()
    {
        const Result r = run(config(QStringLiteral("ok"), false));
        QVERIFY2(r.x.error.isEmpty(), qPrintable(r.x.error));
        QCOMPARE(r.x.response, kAnswer);
        QCOMPARE(r.x.inputTokens, 123);
        QVERIFY(r.deltas.isEmpty());
    }

    void requestShape()
    {
        ProviderConfig c = config(QStringLiteral("inspect"));
        c.temperature = 0.7;
        c.maxTokens = 1234;
        const Result r = run(c);
        QVERIFY2(r.x.error.isEmpty(), qPrintable(r.x.error));
        const QJsonObject seen = QJsonDocument::fromJson(r.x.response.toUtf8()).object();
        QCOMPARE(seen.value("path").toString(), QStringLiteral("/v1/chat/completions"));
        QVERIFY(seen.value("has_auth").toBool());
        const QJsonObject body = seen.value("body").toObject();
        QCOMPARE(body.value("max_tokens").toInt(), 1234);
        QCOMPARE(body.value("temperature").toDouble(), 0.7);
        QVERIFY(body.value("stream").toBool());
        QVERIFY(body.value("stream_options").toObject().value("include_usage").toBool());
        QCOMPARE(body.value("messages").toArray().size(), 2);
    }

    void reasoningKeptApart_data()
    {
        QTest::addColumn<bool>("stream");
        QTest::newRow("stream") << true;
        QTest::newRow("json") << false;
    }
    void reasoningKeptApart()
    {
        QFETCH(bool, stream);
        const Result r = run(config(QStringLiteral("reasoning"), stream));
        QVERIFY2(r.x.error.isEmpty(), qPrintable(r.x.error));
        QCOMPARE(r.x.response, kAnswer);
        QCOMPARE(r.x.reasoning, kReasoning);
        if (stream) {
            QCOMPARE(r.reasoning.join(QString()), kReasoning);
            QVERIFY(!r.deltas.join(QString()).contains(QStringLiteral("Think")));
        }
    }

    void usageAbsentIsEstimated()
    {
        const Result r = run(config(QStringLiteral("no-usage")));
        QVERIFY2(r.x.error.isEmpty(), qPrintable(r.x.error));
        QVERIFY(r.x.tokensEstimated);
        QCOMPARE(r.x.inputTokens, estimateTokens(request().messages));
        QCOMPARE(r.x.outputTokens, estimateTokens(kAnswer));
        QVERIFY(r.x.outputTokens > 20);
    }

    void rateLimitHonorsRetryAfter()
    {
        QElapsedTimer t;
        t.start();
        const Result r = run(config(QStringLiteral("rate-limit")));
        QVERIFY2(r.x.error.isEmpty(), qPrintable(r.x.error));
        QCOMPARE(r.retries.size(), 1);
        QCOMPARE(r.retries.first().at(0).toInt(), 2); // the attempt about to start
        QCOMPARE(r.retries.first().at(1).toInt(), 1000); // Retry-After: 1, not the 20 ms backoff
        QVERIFY(r.retries.first().at(2).toString().contains(QStringLiteral("429")));
        QVERIFY(t.elapsed() >= 950);
        QCOMPARE(r.x.response, kAnswer);
    }

    void serverErrorThenSuccess()
    {
        const Result r = run(config(QStringLiteral("flaky-500")));
        QVERIFY2(r.x.error.isEmpty(), qPrintable(r.x.error));
        QCOMPARE(r.retries.size(), 1);
        QVERIFY(r.retries.first().at(2).toString().contains(QStringLiteral("HTTP 500")));
        const int delay = r.retries.first().at(1).toInt();
        QVERIFY2(delay >= 15 && delay <= 25, "first backoff is the base delay +-25% jitter");
    }

    void serverErrorGivesUp()
    {
        ProviderConfig c = config(QStringLiteral("always-500"));
        c.maxRetries = 2;
        const Result r = run(c);
        QCOMPARE(r.retries.size(), 2);
        QVERIFY(r.retries.at(1).at(1).toInt() >= 30); // exponential: 40 ms +-25%
        QVERIFY(r.x.error.contains(QStringLiteral("HTTP 503")));
        QVERIFY(r.x.error.contains(QStringLiteral("overloaded")));
        QVERIFY(r.x.error.contains(QStringLiteral("gave up after 3 attempts")));
    }

    void stallMidStreamTimesOut()
    {
        ProviderConfig c = config(QStringLiteral("stall"));
        c.timeoutSec = 1;
        c.maxRetries = 0;
        QElapsedTimer t;
        t.start();
        const Result r = run(c);
        QCOMPARE(r.finishedCount, 1);
        QVERIFY(!r.deltas.isEmpty()); // data came, then nothing
        QVERIFY2(r.x.error.contains(QStringLiteral("timeout")), qPrintable(r.x.error));
        // The server stays silent for 30 s, then closes: ending well before that, with "timeout", is the 1 s idle
        // timeout's doing. 20 s, not a tight bound: a loaded machine must not turn this red (the test-command issue).
        QVERIFY2(t.elapsed() < 20000, qPrintable(QString::number(t.elapsed())));
    }

    void stallBeforeHeadersRetriesThenFails()
    {
        ProviderConfig c = config(QStringLiteral("stall-before"));
        c.timeoutSec = 1;
        c.maxRetries = 1;
        const Result r = run(c);
        QCOMPARE(r.retries.size(), 1);
        QVERIFY2(r.x.error.contains(QStringLiteral("timeout")), qPrintable(r.x.error));
    }

    void badBodies_data()
    {
        QTest::addColumn<QString>("scenario");
        QTest::addColumn<bool>("stream");
        QTest::addColumn<QString>("expected");
        QTest::newRow("malformed json") << "malformed" << false << "malformed response body";
        QTest::newRow("malformed stream") << "malformed-stream" << true << "malformed stream event";
        QTest::newRow("truncated stream") << "truncated" << true << "truncated";
        QTest::newRow("empty answer") << "empty" << true << "empty answer";
        QTest::newRow("empty answer json") << "empty" << false << "empty answer";
        QTest::newRow("unauthorized") << "unauthorized" << true << "authentication failed";
        QTest::newRow("unknown model") << "not-found" << true << "unknown model";
    }
    void badBodies()
    {
        QFETCH(QString, scenario);
        QFETCH(bool, stream);
        QFETCH(QString, expected);
        ProviderConfig c = config(scenario, stream);
        c.maxRetries = 0;
        const Result r = run(c);
        QCOMPARE(r.finishedCount, 1);
        QVERIFY2(r.x.error.contains(expected), qPrintable(r.x.error));
    }

    void unknownModelQuotesServer()
    {
        const Result r = run(config(QStringLiteral("not-found")));
        QVERIFY(r.x.error.contains(QStringLiteral("HTTP 404")));
        QVERIFY(r.x.error.contains(QStringLiteral("does not exist"))); // the server's own message
        QVERIFY(r.retries.isEmpty()); // a 404 is not retried
    }

    void unauthorizedIsRedactedAndNotRetried()
    {
        const Result r = run(config(QStringLiteral("unauthorized")));
        QVERIFY(r.retries.isEmpty());
        QVERIFY(r.x.error.contains(QStringLiteral("HTTP 401")));
        QVERIFY(r.x.error.contains(QStringLiteral("KWB_TEST_FAKE_LLM_KEY"))); // where to fix it
        QVERIFY(r.x.error.contains(QStringLiteral("[redacted]"))); // the server echoed the key
        QVERIFY(!r.x.error.contains(QStringLiteral("kwb-test-key-1234567890")));
    }

    void bigBody_data()
    {
        QTest::addColumn<bool>("stream");
        QTest::newRow("json") << false;
        QTest::newRow("stream") << true;
    }
    void bigBody()
    {
        QFETCH(bool, stream);
        const Result r = run(config(QStringLiteral("big"), stream), 50000);
        QVERIFY2(r.x.error.isEmpty(), qPrintable(r.x.error));
        QVERIFY(r.x.response.size() >= 10 * 1024 * 1024 - 64);
        QVERIFY(r.x.response.endsWith(QStringLiteral("```")));
    }

    void answerWithoutCode()
    {
        const Result r = run(config(QStringLiteral("no-code")));
        QVERIFY2(r.x.error.isEmpty(), qPrintable(r.x.error)); // the call worked ...
        const auto code = prompts::extractCode(r.x.response);
        QVERIFY(code.code.isEmpty()); // ... but nothing usable came back
        QVERIFY(code.error.contains(QStringLiteral("no code")));
    }

    void networkErrorRetriesThenFails()
    {
        QTcpServer probe;
        QVERIFY(probe.listen(QHostAddress::LocalHost));
        const quint16 port = probe.serverPort();
        probe.close(); // nothing listens there now
        ProviderConfig c = config(QStringLiteral("ok"));
        c.baseUrl = QStringLiteral("http://127.0.0.1:%1/v1").arg(port);
        c.maxRetries = 1;
        const Result r = run(c);
        QCOMPARE(r.retries.size(), 1);
        QVERIFY2(r.x.error.contains(QStringLiteral("network error")), qPrintable(r.x.error));
    }

    void cancelMidStream()
    {
        auto provider = createProvider(config(QStringLiteral("slow")));
        LlmCall *call = provider->send(request());
        QSignalSpy deltas(call, &LlmCall::delta);
        QSignalSpy finished(call, &LlmCall::finished);
        QVERIFY(deltas.wait(10000));
        call->cancel();
        QCOMPARE(finished.count(), 1); // synchronously
        QVERIFY(call->isFinished());
        QCOMPARE(call->exchange().error, QStringLiteral("cancelled"));
        const int seen = deltas.count();
        QVERIFY(!finished.wait(300)); // nothing more arrives: no second finished ...
        QCOMPARE(deltas.count(), seen); // ... and no more text
        call->cancel(); // harmless
        QCOMPARE(finished.count(), 1);
    }

    void cancelDuringBackoff()
    {
        auto provider = createProvider(config(QStringLiteral("rate-limit")));
        LlmCall *call = provider->send(request());
        QSignalSpy retrying(call, &LlmCall::retrying);
        QSignalSpy finished(call, &LlmCall::finished);
        QSignalSpy deltas(call, &LlmCall::delta);
        QVERIFY(retrying.wait(10000));
        call->cancel();
        QCOMPARE(finished.count(), 1);
        QVERIFY(!finished.wait(1500)); // past Retry-After: the backoff timer must not start another attempt
        QCOMPARE(deltas.count(), 0);
        QCOMPARE(call->exchange().error, QStringLiteral("cancelled"));
    }

    void cancelFromInsideRetryingSlot()
    {
        auto provider = createProvider(config(QStringLiteral("always-500")));
        LlmCall *call = provider->send(request());
        connect(call, &LlmCall::retrying, call, [call] { call->cancel(); });
        QSignalSpy retrying(call, &LlmCall::retrying);
        QSignalSpy finished(call, &LlmCall::finished);
        QVERIFY(finished.wait(10000));
        QVERIFY(!finished.wait(300)); // backoff is 20 ms: a second attempt would have retried by now
        QCOMPARE(retrying.count(), 1);
        QCOMPARE(call->exchange().error, QStringLiteral("cancelled"));
    }

    void cancelFromInsideDeltaSlot()
    {
        auto provider = createProvider(config(QStringLiteral("slow")));
        LlmCall *call = provider->send(request());
        int deltasSeen = 0;
        connect(call, &LlmCall::delta, call, [&deltasSeen, call] {
            ++deltasSeen;
            call->cancel(); // re-entrant: from the call's own signal
        });
        QSignalSpy finished(call, &LlmCall::finished);
        QVERIFY(finished.wait(10000));
        QVERIFY(!finished.wait(300));
        QCOMPARE(finished.count(), 1);
        QCOMPARE(call->exchange().error, QStringLiteral("cancelled"));
        QCOMPARE(deltasSeen, 1); // not even the rest of the read being decoded
    }

    void cancelBeforeStart()
    {
        auto provider = createProvider(config(QStringLiteral("ok")));
        LlmCall *call = provider->send(request());
        QSignalSpy finished(call, &LlmCall::finished);
        call->cancel();
        QCOMPARE(finished.count(), 1);
        QVERIFY(!finished.wait(300));
    }

    void anthropic_data()
    {
        QTest::addColumn<bool>("stream");
        QTest::newRow("stream") << true;
        QTest::newRow("json") << false;
    }
    void anthropic()
    {
        QFETCH(bool, stream);
        const Result r = run(config(QStringLiteral("reasoning"), stream, QStringLiteral("anthropic")));
        QVERIFY2(r.x.error.isEmpty(), qPrintable(r.x.error));
        QCOMPARE(r.x.response, kAnswer);
        QCOMPARE(r.x.reasoning, kReasoning);
        QCOMPARE(r.x.inputTokens, 77);
        QCOMPARE(r.x.outputTokens, 55);
        QVERIFY(!r.x.tokensEstimated);
        if (stream)
            QCOMPARE(r.deltas.join(QString()), kAnswer);
    }

    void anthropicRequestShape()
    {
        const Result r = run(config(QStringLiteral("inspect"), true, QStringLiteral("anthropic")));
        QVERIFY2(r.x.error.isEmpty(), qPrintable(r.x.error));
        const QJsonObject seen = QJsonDocument::fromJson(r.x.response.toUtf8()).object();
        QCOMPARE(seen.value("path").toString(), QStringLiteral("/v1/messages"));
        QVERIFY(seen.value("has_auth").toBool()); // x-api-key
        QCOMPARE(seen.value("anthropic_version").toString(), QStringLiteral("2023-06-01"));
        const QJsonObject body = seen.value("body").toObject();
        QCOMPARE(body.value("system").toString(), QStringLiteral("You write Triton kernels."));
        QCOMPARE(body.value("messages").toArray().size(), 1); // the system turn moved out
    }

    void unknownWire()
    {
        ProviderConfig c = config(QStringLiteral("ok"));
        c.wire = QStringLiteral("smoke-signals");
        QString error;
        QVERIFY(!createProvider(c, &error));
        QVERIFY(error.contains(QStringLiteral("smoke-signals")));
    }
};

QTEST_GUILESS_MAIN(TstLlmProviders)
#include "tst_llmproviders.moc"
