// SPDX-License-Identifier: MIT
#include "providerconfig.h"

#include "env/locations.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>

namespace kwb::llm {

QJsonObject toJson(const ProviderConfig &c)
{
    return {{"name", c.name},
            {"wire", c.wire},
            {"base_url", c.baseUrl},
            {"model", c.model},
            {"temperature", c.temperature},
            {"max_tokens", c.maxTokens},
            {"timeout_sec", c.timeoutSec},
            {"stream", c.stream},
            {"api_key_env", c.apiKeyEnv},
            {"max_retries", c.maxRetries},
            {"input_usd_per_mtok", c.inputUsdPerMTok},
            {"output_usd_per_mtok", c.outputUsdPerMTok},
            {"cassette", c.cassette},
            {"retry_base_delay_ms", c.retryBaseDelayMs},
            {"replay_lenient", c.replayLenient},
            {"replay_chunk_chars", c.replayChunkChars},
            {"replay_chunk_delay_ms", c.replayChunkDelayMs}};
}

ProviderConfig providerConfigFromJson(const QJsonObject &o, const ProviderConfig &base)
{
    ProviderConfig c = base;
    auto str = [&o](const char *key, QString &field) {
        if (o.contains(QLatin1String(key)))
            field = o.value(QLatin1String(key)).toString();
    };
    auto num = [&o](const char *key, auto &field) {
        const QJsonValue v = o.value(QLatin1String(key));
        if (v.isDouble())
            field = static_cast<std::remove_reference_t<decltype(field)>>(v.toDouble());
    };
    auto flag = [&o](const char *key, bool &field) {
        const QJsonValue v = o.value(QLatin1String(key));
        if (v.isBool())
            field = v.toBool();
    };
    str("name", c.name);
    str("wire", c.wire);
    str("base_url", c.baseUrl);
    str("model", c.model);
    num("temperature", c.temperature);
    num("max_tokens", c.maxTokens);
    num("timeout_sec", c.timeoutSec);
    flag("stream", c.stream);
    str("api_key_env", c.apiKeyEnv);
    num("max_retries", c.maxRetries);
    num("input_usd_per_mtok", c.inputUsdPerMTok);
    num("output_usd_per_mtok", c.outputUsdPerMTok);
    str("cassette", c.cassette);
    num("retry_base_delay_ms", c.retryBaseDelayMs);
    flag("replay_lenient", c.replayLenient);
    num("replay_chunk_chars", c.replayChunkChars);
    num("replay_chunk_delay_ms", c.replayChunkDelayMs);
    return c;
}

QList<ProviderConfig> builtinProviders()
{
    auto make = [](const char *name, const char *wire, const char *url, const char *model, const char *keyEnv,
                   double in, double out) {
        ProviderConfig c;
        c.name = QString::fromLatin1(name);
        c.wire = QString::fromLatin1(wire);
        c.baseUrl = QString::fromLatin1(url);
        c.model = QString::fromLatin1(model);
        c.apiKeyEnv = QString::fromLatin1(keyEnv);
        c.inputUsdPerMTok = in;
        c.outputUsdPerMTok = out;
        return c;
    };
    // Prices are list prices (USD per million tokens) when this was written; providers.json
    // overrides them. Local servers cost nothing.
    QList<ProviderConfig> list{
        make("openai", "openai", "https://api.openai.com/v1", "gpt-4o", "OPENAI_API_KEY", 2.5, 10.0),
        make("deepseek", "openai", "https://api.deepseek.com/v1", "deepseek-chat", "DEEPSEEK_API_KEY", 0.28, 0.42),
        make("openrouter", "openai", "https://openrouter.ai/api/v1", "deepseek/deepseek-chat", "OPENROUTER_API_KEY",
             0, 0),
        make("ollama", "openai", "http://127.0.0.1:11434/v1", "qwen2.5-coder", "", 0, 0),
        make("vllm", "openai", "http://127.0.0.1:8000/v1", "default", "", 0, 0),
        make("llamacpp", "openai", "http://127.0.0.1:8080/v1", "default", "", 0, 0),
        make("anthropic", "anthropic", "https://api.anthropic.com", "claude-sonnet-4-5", "ANTHROPIC_API_KEY", 3.0,
             15.0),
        make("replay", "replay", "", "replay", "", 0, 0),
    };
    return list;
}

QString configDir()
{
    return env::configDir();
}

QList<ProviderConfig> loadProviders(QString *error)
{
    QList<ProviderConfig> list = builtinProviders();
    QFile f(configDir() + QStringLiteral("/providers.json"));
    if (!f.exists())
        return list;
    if (!f.open(QIODevice::ReadOnly)) {
        if (error)
            *error = QStringLiteral("cannot read %1: %2").arg(f.fileName(), f.errorString());
        return list;
    }
    QJsonParseError pe;
    const QJsonDocument doc = QJsonDocument::fromJson(f.readAll(), &pe);
    if (pe.error != QJsonParseError::NoError) {
        if (error)
            *error = QStringLiteral("%1: %2 at offset %3").arg(f.fileName(), pe.errorString()).arg(pe.offset);
        return list;
    }
    const QJsonArray entries = doc.isArray() ? doc.array() : doc.object().value("providers").toArray();
    for (const auto &v : entries) {
        const QJsonObject o = v.toObject();
        const QString name = o.value("name").toString();
        if (name.isEmpty())
            continue;
        auto it = std::find_if(list.begin(), list.end(), [&](const ProviderConfig &c) { return c.name == name; });
        if (it != list.end()) {
            *it = providerConfigFromJson(o, *it);
        } else {
            ProviderConfig base;
            base.wire = QStringLiteral("openai");
            list.append(providerConfigFromJson(o, base));
        }
    }
    return list;
}

ProviderConfig findProvider(const QString &name, bool *found)
{
    for (const auto &c : loadProviders()) {
        if (c.name == name) {
            if (found)
                *found = true;
            return c;
        }
    }
    if (found)
        *found = false;
    return {};
}

static bool needsKey(const ProviderConfig &c)
{
    return c.wire != QLatin1String("replay") && !c.apiKeyEnv.isEmpty();
}

QString apiKey(const ProviderConfig &config, QString *error)
{
    if (!needsKey(config))
        return {};
    const QString fromEnv = qEnvironmentVariable(config.apiKeyEnv.toLocal8Bit().constData()).trimmed();
    if (!fromEnv.isEmpty())
        return fromEnv;
    const QString path = configDir() + QStringLiteral("/keys.json");
    const QFileInfo info(path);
    if (!info.exists()) {
        if (error)
            *error = QStringLiteral("no API key for provider '%1': set $%2 or add \"%1\" to %3 (mode 0600)")
                         .arg(config.name, config.apiKeyEnv, path);
        return {};
    }
    const auto wide = QFileDevice::ReadGroup | QFileDevice::WriteGroup | QFileDevice::ExeGroup
        | QFileDevice::ReadOther | QFileDevice::WriteOther | QFileDevice::ExeOther;
    if (info.permissions() & wide) {
        if (error)
            *error = QStringLiteral("refusing to read %1: it is readable or writable by other users; "
                                    "run `chmod 600 %1`")
                         .arg(path);
        return {};
    }
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        if (error)
            *error = QStringLiteral("cannot read %1: %2").arg(path, f.errorString());
        return {};
    }
    QJsonParseError pe;
    const QJsonObject keys = QJsonDocument::fromJson(f.readAll(), &pe).object();
    if (pe.error != QJsonParseError::NoError) {
        // Never quote the file's content: it holds secrets.
        if (error)
            *error = QStringLiteral("%1 is not a JSON object (parse error at offset %2)").arg(path).arg(pe.offset);
        return {};
    }
    for (const QString &k : {config.name, config.apiKeyEnv}) {
        const QString v = keys.value(k).toString().trimmed();
        if (!v.isEmpty())
            return v;
    }
    if (error)
        *error = QStringLiteral("no API key for provider '%1': set $%2 or add \"%1\" to %3")
                     .arg(config.name, config.apiKeyEnv, path);
    return {};
}

bool hasApiKey(const ProviderConfig &config)
{
    return !needsKey(config) || !apiKey(config).isEmpty();
}

QString redact(QString text, const QString &secret)
{
    if (secret.size() >= 4)
        text.replace(secret, QStringLiteral("[redacted]"));
    return text;
}

} // namespace kwb::llm
