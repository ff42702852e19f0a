// SPDX-License-Identifier: MIT
#pragma once

// Choosing the LLM provider of a run, shared by `kwb run` and the GUI's New run: a named provider,
// the default one, an explicit cassette, or (no API key) the shipped cassette of the task.

#include "llm/providerconfig.h"

#include <QString>

#include <memory>

namespace kwb::llm {
class LlmProvider;
}

namespace kwb::pipeline {

/// What a front-end asks for.
struct ProviderRequest {
    QString taskFile; ///< the task (its name picks the shipped cassette)
    QString provider; ///< a provider name; empty: $KWB_PROVIDER, else "deepseek"
    QString model; ///< empty: the provider's default model
    QString cassette; ///< replay this cassette (the provider name is then not used)
    bool cassetteIsShipped = false; ///< the cassette is an authored fallback (a resumed run's): lenient replay
    bool lenient = false; ///< replay even when a prompt differs from the recorded one
    /// A provider that was *named* but has no key also falls back to the shipped cassette. The CLI
    /// refuses instead (someone who typed --provider wants that provider); the GUI falls back, and
    /// says so in its status bar.
    bool namedProviderFallsBack = false;
};

enum class ProviderSetupError { None, UnknownProvider, NoApiKey, ProviderFailed };

/// The provider made for a run, or why none could be.
struct ProviderSetup {
    std::unique_ptr<llm::LlmProvider> provider;
    llm::ProviderConfig config; ///< as used (for a replay: wire "replay", the cassette's absolute path)
    QString cassette; ///< absolute cassette path when replaying, else empty
    bool shippedReplay = false; ///< replaying an authored cassette because `missingKeyProvider` has no key
    QString missingKeyProvider;
    QString authoredBy; ///< the cassette's "authored_by" metadata, if any
    ProviderSetupError error = ProviderSetupError::None;
    QString errorText; ///< one sentence, when `provider` is null

    explicit operator bool() const { return provider != nullptr; }
};

/// Resolves `request` into a ready provider (replay cassettes loaded and checked). Secret-free:
/// keys are looked up (llm::hasApiKey) but never copied here.
ProviderSetup setUpProvider(const ProviderRequest &request);

/// A task given as a file path or as a task name of the shipped index: its absolute path, or empty
/// with `error`.
QString resolveTaskFile(const QString &fileOrName, QString *error = nullptr);

} // namespace kwb::pipeline
