// SPDX-License-Identifier: MIT
#pragma once

#include <QJsonObject>
#include <QList>
#include <QString>

namespace kwb::llm {

/// How to reach one LLM service: wire format, endpoint, model, sampling, limits and prices.
/// Holds the *name* of the variable that carries the API key, never the key itself.
struct ProviderConfig {
    QString name; ///< e.g. "deepseek"; unique in the provider list
    QString wire; ///< "openai" | "anthropic" | "replay"
    QString baseUrl; ///< e.g. "https://api.deepseek.com/v1" (openai: + /chat/completions; anthropic: + /v1/messages)
    QString model;
    double temperature = 0.2;
    int maxTokens = 8192;
    int timeoutSec = 300; ///< per attempt, counted from the last byte received (catches mid-stream stalls)
    bool stream = true;
    QString apiKeyEnv; ///< environment variable with the key; empty: the service needs no key
    int maxRetries = 4; ///< extra attempts after the first on 429 / 5xx / network errors / stalls
    double inputUsdPerMTok = 0, outputUsdPerMTok = 0;
    QString cassette; ///< replay: a cassette file or a run directory
    // Additions beyond the published shape:
    int retryBaseDelayMs = 1000; ///< first backoff delay; doubles per attempt, +-25% jitter, capped at 60 s
    bool replayLenient = false; ///< replay: serve a recorded answer even when the prompt hash differs
    int replayChunkChars = 48; ///< replay: size of the streamed pieces
    int replayChunkDelayMs = 0; ///< replay: pause between pieces (0: next event-loop turn)

    bool operator==(const ProviderConfig &) const = default;
};

QJsonObject toJson(const ProviderConfig &c);
/// Missing keys keep the values of `base` (so providers.json may override a builtin partially).
ProviderConfig providerConfigFromJson(const QJsonObject &o, const ProviderConfig &base = {});

/// The shipped providers: openai, deepseek, openrouter, ollama, vllm, llamacpp, anthropic, replay.
QList<ProviderConfig> builtinProviders();

/// Per-user configuration folder: $KWB_CONFIG_DIR, else $XDG_CONFIG_HOME/kernel-workbench,
/// else ~/.config/kernel-workbench.
QString configDir();

/// Builtins merged with configDir()/providers.json ({"providers":[...]} or a bare array; an entry
/// whose name matches a builtin overrides only the keys it sets). `error` reports a broken file.
QList<ProviderConfig> loadProviders(QString *error = nullptr);

/// Finds a provider by name in loadProviders(); a default config (empty name) when unknown.
ProviderConfig findProvider(const QString &name, bool *found = nullptr);

/// True when the provider needs no key or a key can be found (env var or keys file).
bool hasApiKey(const ProviderConfig &config);

/// The API key for a provider: the environment variable named by apiKeyEnv, else keys.json in
/// configDir() (an object mapping provider name or variable name to the key). The file must be
/// owner-only (no group/other permission bits): a wider file is refused with an error that says
/// how to fix it. Returns an empty string and sets `error` when none is found. The caller must
/// never log, store or echo the returned value.
QString apiKey(const ProviderConfig &config, QString *error = nullptr);

/// Replaces every occurrence of `secret` in `text` (used on server messages that may echo a key).
QString redact(QString text, const QString &secret);

} // namespace kwb::llm
