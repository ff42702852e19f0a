// SPDX-License-Identifier: MIT
#pragma once

#include "llm/llmprovider.h"

#include <QHash>
#include <QJsonObject>

#include <optional>

namespace kwb::llm {

/// A cassette: recorded exchanges plus free metadata (who authored it, for which task ...).
/// File form: {"format":"kwb-cassette","version":1,"metadata":{...},"exchanges":[LlmExchange JSON]}.
struct Cassette {
    QJsonObject metadata;
    QList<LlmExchange> exchanges;
};

/// Reads a cassette file, or a run directory: its cassette.json, else exchanges.jsonl, else
/// exchanges/*.json or llm/*.json (the run store's llm/<xid>.json) holding one LlmExchange each,
/// in name order. A run directory's run.json, when present, becomes metadata["run"].
std::optional<Cassette> loadCassette(const QString &path, QString *error = nullptr);
bool saveCassette(const Cassette &cassette, const QString &file, QString *error = nullptr);

/// Serves recorded answers. The n-th request of a call type gets the n-th recorded exchange of
/// that call type. The prompt hash is checked: on a mismatch the call fails with a report of the
/// first difference (call type, index, first differing line), unless config.replayLenient, which
/// serves it anyway and emits `mismatchIgnored`. Answers stream in pieces like a live model.
class ReplayProvider : public LlmProvider
{
    Q_OBJECT
public:
    /// Loads config.cassette; check isValid()/loadError().
    explicit ReplayProvider(const ProviderConfig &config, QObject *parent = nullptr);
    /// Replays exchanges given directly (e.g. a recorded run's).
    ReplayProvider(const ProviderConfig &config, const QList<LlmExchange> &exchanges, QObject *parent = nullptr);

    bool isValid() const { return m_loadError.isEmpty(); }
    QString loadError() const { return m_loadError; }
    const QJsonObject &metadata() const { return m_metadata; }
    /// Recorded exchanges of a call type not served yet.
    int remaining(const QString &callType) const;

    LlmCall *send(const ChatRequest &request) override;

    /// The mismatch report for a recorded vs. a new prompt (empty when equal).
    static QString describeMismatch(const QString &callType, int index, const QList<ChatMessage> &recorded,
                                    const QList<ChatMessage> &now);

Q_SIGNALS:
    void mismatchIgnored(const QString &report);

private:
    QList<LlmExchange> m_exchanges;
    QHash<QString, int> m_served;
    QJsonObject m_metadata;
    QString m_loadError;
};

} // namespace kwb::llm
