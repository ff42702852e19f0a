// SPDX-License-Identifier: MIT
#include "replayprovider.h"

#include "llm/tokens.h"
#include "model/json.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSaveFile>
#include <QTimer>

namespace kwb::llm {

namespace {

std::optional<QJsonDocument> readJson(const QString &path, QString *error)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        if (error)
            *error = QStringLiteral("cannot read %1: %2").arg(path, f.errorString());
        return std::nullopt;
    }
    QJsonParseError pe;
    QJsonDocument doc = QJsonDocument::fromJson(f.readAll(), &pe);
    if (pe.error != QJsonParseError::NoError) {
        if (error)
            *error = QStringLiteral("%1: %2 at offset %3").arg(path, pe.errorString()).arg(pe.offset);
        return std::nullopt;
    }
    return doc;
}

std::optional<Cassette> cassetteFromFile(const QString &path, QString *error)
{
    const auto doc = readJson(path, error);
    if (!doc)
        return std::nullopt;
    const QJsonObject o = doc->object();
    if (o.value("format").toString() != QLatin1String("kwb-cassette")) {
        if (error)
            *error = QStringLiteral("%1 is not a cassette (\"format\" must be \"kwb-cassette\")").arg(path);
        return std::nullopt;
    }
    if (o.value("version").toInt() != 1) {
        if (error)
            *error = QStringLiteral("%1: unsupported cassette version %2").arg(path).arg(o.value("version").toInt());
        return std::nullopt;
    }
    Cassette c;
    c.metadata = o.value("metadata").toObject();
    for (const auto &v : o.value("exchanges").toArray())
        c.exchanges.append(json::exchangeFromJson(v.toObject()));
    return c;
}

/// A stored exchange (file or JSONL line) may be bare or wrapped as {"exchange": {...}}.
LlmExchange exchangeFrom(const QJsonObject &o)
{
    return json::exchangeFromJson(o.contains("exchange") ? o.value("exchange").toObject() : o);
}

std::optional<Cassette> cassetteFromRunDir(const QString &dirPath, QString *error)
{
    const QDir dir(dirPath);
    if (dir.exists(QStringLiteral("cassette.json")))
        return cassetteFromFile(dir.filePath(QStringLiteral("cassette.json")), error);
    Cassette c;
    if (const auto run = readJson(dir.filePath(QStringLiteral("run.json")), nullptr))
        c.metadata.insert("run", run->object());
    QFile jsonl(dir.filePath(QStringLiteral("exchanges.jsonl")));
    if (jsonl.open(QIODevice::ReadOnly)) {
        while (!jsonl.atEnd()) {
            const QByteArray line = jsonl.readLine().trimmed();
            if (!line.isEmpty())
                c.exchanges.append(exchangeFrom(QJsonDocument::fromJson(line).object()));
        }
        return c;
    }
    for (const QString &sub : {QStringLiteral("exchanges"), QStringLiteral("llm")}) {
        const QDir d(dir.filePath(sub));
        if (!d.exists())
            continue;
        for (const QString &name : d.entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name)) {
            const auto doc = readJson(d.filePath(name), error);
            if (!doc)
                return std::nullopt;
            c.exchanges.append(exchangeFrom(doc->object()));
        }
        return c;
    }
    if (error)
        *error = QStringLiteral("%1 holds no recorded exchanges (cassette.json, exchanges.jsonl, exchanges/*.json)")
                     .arg(dirPath);
    return std::nullopt;
}

/// Streams a recorded answer in pieces, then finishes.
class ReplayCall : public LlmCall
{
public:
    ReplayCall(const LlmExchange &result, const QString &failure, const ProviderConfig &config, QObject *parent)
        : LlmCall(parent)
        , m_result(result)
        , m_failure(failure)
        , m_chunk(std::max(1, config.replayChunkChars))
    {
        m_exchange = result;
        m_exchange.response.clear();
        m_exchange.reasoning.clear();
        m_timer.setSingleShot(false);
        m_timer.setInterval(std::max(0, config.replayChunkDelayMs));
        QObject::connect(&m_timer, &QTimer::timeout, this, [this] { step(); });
        m_timer.start();
    }

protected:
    void abortWork() override { m_timer.stop(); }

private:
    void step()
    {
        if (!m_failure.isEmpty()) {
            m_timer.stop();
            LlmExchange x = m_exchange;
            x.error = m_failure;
            finish(x);
            return;
        }
        if (m_reasoningPos < m_result.reasoning.size()) {
            const QString piece = m_result.reasoning.mid(m_reasoningPos, m_chunk);
            m_reasoningPos += piece.size();
            Q_EMIT reasoningDelta(piece);
            return;
        }
        if (m_pos < m_result.response.size()) {
            int n = m_chunk;
            // Never cut a surrogate pair: a GUI appending pieces would show a broken character.
            if (m_pos + n < m_result.response.size() && m_result.response.at(m_pos + n).isLowSurrogate())
                ++n;
            const QString piece = m_result.response.mid(m_pos, n);
            m_pos += piece.size();
            Q_EMIT delta(piece);
            return;
        }
        m_timer.stop();
        finish(m_result);
    }

    LlmExchange m_result;
    QString m_failure;
    int m_chunk;
    qsizetype m_pos = 0;
    qsizetype m_reasoningPos = 0;
    QTimer m_timer;
};

QStringList promptLines(const QList<ChatMessage> &messages)
{
    QStringList lines;
    for (const auto &m : messages) {
        lines << QStringLiteral("[%1]").arg(m.role);
        lines << m.content.split(QLatin1Char('\n'));
    }
    return lines;
}

} // namespace

std::optional<Cassette> loadCassette(const QString &path, QString *error)
{
    if (path.isEmpty()) {
        if (error)
            *error = QStringLiteral("the replay provider needs a cassette file or a run directory");
        return std::nullopt;
    }
    const QFileInfo info(path);
    if (!info.exists()) {
        if (error)
            *error = QStringLiteral("cassette %1 does not exist").arg(path);
        return std::nullopt;
    }
    return info.isDir() ? cassetteFromRunDir(path, error) : cassetteFromFile(path, error);
}

bool saveCassette(const Cassette &cassette, const QString &file, QString *error)
{
    QJsonArray xs;
    for (const auto &x : cassette.exchanges)
        xs.append(json::toJson(x));
    const QJsonObject o{{"format", "kwb-cassette"}, {"version", 1}, {"metadata", cassette.metadata}, {"exchanges", xs}};
    QSaveFile f(file);
    if (!f.open(QIODevice::WriteOnly)) {
        if (error)
            *error = QStringLiteral("cannot write %1: %2").arg(file, f.errorString());
        return false;
    }
    f.write(QJsonDocument(o).toJson(QJsonDocument::Indented));
    if (!f.commit()) {
        if (error)
            *error = QStringLiteral("cannot write %1: %2").arg(file, f.errorString());
        return false;
    }
    return true;
}

ReplayProvider::ReplayProvider(const ProviderConfig &config, QObject *parent)
    : LlmProvider(config, parent)
{
    QString error;
    if (auto c = loadCassette(config.cassette, &error)) {
        m_exchanges = c->exchanges;
        m_metadata = c->metadata;
    } else {
        m_loadError = error;
    }
}

ReplayProvider::ReplayProvider(const ProviderConfig &config, const QList<LlmExchange> &exchanges, QObject *parent)
    : LlmProvider(config, parent)
    , m_exchanges(exchanges)
{
}

int ReplayProvider::remaining(const QString &callType) const
{
    const auto total = std::count_if(m_exchanges.begin(), m_exchanges.end(), [&](const LlmExchange &x) {
        return x.callType == callType && x.error.isEmpty();
    });
    return static_cast<int>(total) - m_served.value(callType);
}

QString ReplayProvider::describeMismatch(const QString &callType, int index, const QList<ChatMessage> &recorded,
                                         const QList<ChatMessage> &now)
{
    if (promptHash(recorded) == promptHash(now))
        return {};
    const QStringList a = promptLines(recorded);
    const QStringList b = promptLines(now);
    qsizetype i = 0;
    while (i < a.size() && i < b.size() && a.at(i) == b.at(i))
        ++i;
    auto lineOr = [](const QStringList &l, qsizetype i) {
        return i < l.size() ? QStringLiteral("\"%1\"").arg(l.at(i)) : QStringLiteral("(end of prompt)");
    };
    return QStringLiteral("prompt differs from the recording for call %1 #%2 at prompt line %3:\n"
                          "  recorded: %4\n  now:      %5")
        .arg(callType)
        .arg(index + 1)
        .arg(i + 1)
        .arg(lineOr(a, i), lineOr(b, i));
}

LlmCall *ReplayProvider::send(const ChatRequest &request)
{
    const int index = m_served.value(request.callType);
    // Failed recorded calls are skipped: the pipeline retried them, and what counts is the answer used.
    const LlmExchange *recorded = nullptr;
    int seen = 0;
    for (const auto &x : m_exchanges) {
        if (x.callType != request.callType || !x.error.isEmpty())
            continue;
        if (seen++ == index) {
            recorded = &x;
            break;
        }
    }
    LlmExchange result;
    result.id = request.exchangeId;
    result.callType = request.callType;
    result.provider = m_config.name;
    result.model = m_config.model;
    result.messages = request.messages;
    result.promptHash = promptHash(request.messages);
    result.startedAt = QDateTime::currentDateTimeUtc();
    QString failure;
    if (!m_loadError.isEmpty()) {
        failure = m_loadError;
    } else if (!recorded) {
        failure = QStringLiteral("the recording has no answer for call %1 #%2 (it holds %3 of that type)")
                      .arg(request.callType)
                      .arg(index + 1)
                      .arg(seen);
    } else {
        m_served[request.callType] = index + 1;
        const QString recordedHash = recorded->promptHash.isEmpty() ? promptHash(recorded->messages)
                                                                    : recorded->promptHash;
        if (recordedHash != result.promptHash) {
            QString report = describeMismatch(request.callType, index, recorded->messages, request.messages);
            if (report.isEmpty()) // the recorded hash itself is stale; messages agree
                report = QStringLiteral("prompt hash of call %1 #%2 differs from the recording")
                             .arg(request.callType)
                             .arg(index + 1);
            if (m_config.replayLenient)
                Q_EMIT mismatchIgnored(report);
            else
                failure = report + QStringLiteral("\n(replay leniently to serve the recorded answer anyway)");
        }
        result.model = recorded->model.isEmpty() ? m_config.model : recorded->model;
        result.response = recorded->response;
        result.reasoning = recorded->reasoning;
        result.inputTokens = recorded->inputTokens;
        result.outputTokens = recorded->outputTokens;
        result.tokensEstimated = recorded->tokensEstimated;
        result.costUsd = costUsd(m_config, result.inputTokens, result.outputTokens);
    }
    return new ReplayCall(result, failure, m_config, this);
}

} // namespace kwb::llm
