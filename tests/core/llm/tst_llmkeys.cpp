// SPDX-License-Identifier: MIT
// API keys: where they come from, the owner-only keys file, and that a key never leaves the
// HTTP header (a recognizable fake key is grepped for in every exchange, message, log and file).
#include "fakellmserver.h"
#include "llm/llmprovider.h"
#include "llm/replayprovider.h"
#include "llm/tokens.h"
#include "model/json.h"

#include <QDirIterator>
#include <QFile>
#include <QJsonDocument>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace kwb;
using namespace kwb::llm;

namespace {
const QByteArray kKey = "kwb-FAKE-KEY-7c1e5b0f9a";
QStringList g_log;
void captureLog(QtMsgType, const QMessageLogContext &, const QString &msg)
{
    g_log << msg;
}

bool writeFile(const QString &path, const QByteArray &bytes, QFile::Permissions perms)
{
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        return false;
    f.write(bytes);
    f.close();
    return f.setPermissions(perms);
}
} // namespace

class TstLlmKeys : public QObject
{
    Q_OBJECT

    QTemporaryDir m_config;

    static ProviderConfig fake(const QString &url, const QString &model)
    {
        ProviderConfig c;
        c.name = QStringLiteral("fake");
        c.wire = QStringLiteral("openai");
        c.baseUrl = url;
        c.model = model;
        c.apiKeyEnv = QStringLiteral("KWB_TEST_SECRET_KEY");
        c.maxRetries = 1;
        c.retryBaseDelayMs = 10;
        c.timeoutSec = 10;
        return c;
    }

private Q_SLOTS:
    void init()
    {
        qputenv("KWB_CONFIG_DIR", m_config.path().toUtf8());
        qunsetenv("KWB_TEST_SECRET_KEY");
        QFile::remove(m_config.filePath(QStringLiteral("keys.json")));
        QFile::remove(m_config.filePath(QStringLiteral("providers.json")));
    }

    void keyFromEnvironment()
    {
        qputenv("KWB_TEST_SECRET_KEY", kKey);
        const ProviderConfig c = fake({}, {});
        QVERIFY(hasApiKey(c));
        QCOMPARE(apiKey(c), QString::fromLatin1(kKey));
    }

    void keyFromOwnerOnlyFile()
    {
        const ProviderConfig c = fake({}, {});
        QVERIFY(!hasApiKey(c));
        QString error;
        QVERIFY(apiKey(c, &error).isEmpty());
        QVERIFY(error.contains(QStringLiteral("KWB_TEST_SECRET_KEY")));
        QVERIFY(writeFile(m_config.filePath(QStringLiteral("keys.json")), "{\"fake\": \"" + kKey + "\"}",
                          QFile::ReadOwner | QFile::WriteOwner));
        QVERIFY(hasApiKey(c));
        QCOMPARE(apiKey(c), QString::fromLatin1(kKey));
    }

    void keyFileByVariableName()
    {
        QVERIFY(writeFile(m_config.filePath(QStringLiteral("keys.json")),
                          "{\"KWB_TEST_SECRET_KEY\": \"" + kKey + "\"}", QFile::ReadOwner | QFile::WriteOwner));
        QCOMPARE(apiKey(fake({}, {})), QString::fromLatin1(kKey));
    }

    void widerKeyFileRefused()
    {
        QVERIFY(writeFile(m_config.filePath(QStringLiteral("keys.json")), "{\"fake\": \"" + kKey + "\"}",
                          QFile::ReadOwner | QFile::WriteOwner | QFile::ReadGroup | QFile::ReadOther));
        QString error;
        QVERIFY(apiKey(fake({}, {}), &error).isEmpty());
        QVERIFY2(error.contains(QStringLiteral("chmod 600")), qPrintable(error));
        QVERIFY(!error.contains(QString::fromLatin1(kKey)));
        QVERIFY(!hasApiKey(fake({}, {})));
    }

    void keylessProviders()
    {
        for (const auto &c : builtinProviders()) {
            if (c.name == QLatin1String("ollama") || c.name == QLatin1String("replay"))
                QVERIFY(hasApiKey(c));
        }
    }

    void builtinList()
    {
        QStringList names;
        for (const auto &c : builtinProviders())
            names << c.name;
        QCOMPARE(names,
                 QStringList({"openai", "deepseek", "openrouter", "ollama", "vllm", "llamacpp", "anthropic", "replay"}));
        const ProviderConfig ds = builtinProviders().at(1);
        QCOMPARE(ds.apiKeyEnv, QStringLiteral("DEEPSEEK_API_KEY"));
        QCOMPARE(builtinProviders().at(6).wire, QStringLiteral("anthropic"));
    }

    void providersFileMerges()
    {
        QVERIFY(writeFile(m_config.filePath(QStringLiteral("providers.json")),
                          R"({"providers":[{"name":"deepseek","model":"deepseek-reasoner","input_usd_per_mtok":0.5},
                               {"name":"mybox","base_url":"http://10.0.0.2:9000/v1","model":"qwen"}]})",
                          QFile::ReadOwner | QFile::WriteOwner));
        QString error;
        const auto list = loadProviders(&error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(list.size(), builtinProviders().size() + 1);
        bool found = false;
        const ProviderConfig ds = findProvider(QStringLiteral("deepseek"), &found);
        QVERIFY(found);
        QCOMPARE(ds.model, QStringLiteral("deepseek-reasoner"));
        QCOMPARE(ds.inputUsdPerMTok, 0.5);
        QCOMPARE(ds.baseUrl, QStringLiteral("https://api.deepseek.com/v1")); // kept from the builtin
        const ProviderConfig mine = findProvider(QStringLiteral("mybox"), &found);
        QVERIFY(found);
        QCOMPARE(mine.wire, QStringLiteral("openai"));
        QCOMPARE(mine.baseUrl, QStringLiteral("http://10.0.0.2:9000/v1"));
    }

    void configJsonRoundTrip()
    {
        ProviderConfig c = fake(QStringLiteral("http://h/v1"), QStringLiteral("m"));
        c.replayLenient = true;
        c.outputUsdPerMTok = 3.5;
        QCOMPARE(providerConfigFromJson(toJson(c)), c);
    }

    void missingKeyIsAClearError()
    {
        auto p = createProvider(fake(QStringLiteral("http://127.0.0.1:9/v1"), QStringLiteral("m")));
        LlmCall *call = p->send({QStringLiteral("seed1"), {{QStringLiteral("user"), QStringLiteral("hi")}}, {}});
        QSignalSpy finished(call, &LlmCall::finished);
        QVERIFY(finished.wait(5000));
        QVERIFY(call->exchange().error.contains(QStringLiteral("no API key")));
    }

    void keyNeverLeaks()
    {
        QTemporaryDir out;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("FAKE_EXPECTED_KEY"), QString::fromLatin1(kKey));
        test::FakeLlmServer server(env);
        QVERIFY(server.port() > 0);
        qputenv("KWB_TEST_SECRET_KEY", kKey);

        g_log.clear();
        const auto previous = qInstallMessageHandler(captureLog);
        QList<LlmExchange> exchanges;
        QStringList messages;
        int i = 0;
        for (const char *scenario : {"require-key", "ok", "unauthorized", "always-500", "malformed", "stall"}) {
            ProviderConfig c = fake(server.openaiUrl(), QStringLiteral("%1:%2").arg(QLatin1String(scenario)).arg(i));
            c.timeoutSec = 1;
            c.stream = QByteArray(scenario) != "malformed";
            auto p = createProvider(c);
            LlmCall *call = p->send({QStringLiteral("seed%1").arg(++i), {{QStringLiteral("user"), QStringLiteral("hi")}},
                                     QStringLiteral("x%1").arg(i)});
            connect(call, &LlmCall::retrying, this,
                    [&messages](int, int, const QString &why) { messages << why; });
            QSignalSpy finished(call, &LlmCall::finished);
            QVERIFY(finished.wait(20000));
            exchanges << call->exchange();
            messages << call->exchange().error;
            qWarning("finished %s: %s", scenario, qPrintable(call->exchange().error));
        }
        qInstallMessageHandler(previous);
        // The server got the key (so it really was sent), and the echoing 401 was seen.
        QVERIFY2(exchanges.at(0).error.isEmpty(), qPrintable(exchanges.at(0).error));
        QVERIFY(exchanges.at(2).error.contains(QStringLiteral("[redacted]")));

        // Everything a run would store.
        Cassette cassette;
        cassette.exchanges = exchanges;
        QVERIFY(saveCassette(cassette, out.filePath(QStringLiteral("cassette.json"))));
        QFile table(out.filePath(QStringLiteral("tokens.txt")));
        QVERIFY(table.open(QIODevice::WriteOnly));
        table.write(formatTokenTable(tokenTable(exchanges)).toUtf8());
        table.close();
        QFile log(out.filePath(QStringLiteral("log.txt")));
        QVERIFY(log.open(QIODevice::WriteOnly));
        log.write((g_log + messages).join(QLatin1Char('\n')).toUtf8());
        log.close();

        for (const auto &x : exchanges) {
            const QByteArray json = QJsonDocument(json::toJson(x)).toJson();
            QVERIFY2(!json.contains(kKey), json.constData());
        }
        for (const QString &m : g_log + messages)
            QVERIFY2(!m.contains(QString::fromLatin1(kKey)), qPrintable(m));
        int files = 0;
        QDirIterator it(out.path(), QDir::Files, QDirIterator::Subdirectories);
        while (it.hasNext()) {
            QFile f(it.next());
            QVERIFY(f.open(QIODevice::ReadOnly));
            QVERIFY2(!f.readAll().contains(kKey), qPrintable(f.fileName()));
            ++files;
        }
        QCOMPARE(files, 3);
    }
};

QTEST_GUILESS_MAIN(TstLlmKeys)
#include "tst_llmkeys.moc"
