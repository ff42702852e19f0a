// SPDX-License-Identifier: MIT
#include "tokens.h"

#include <QCryptographicHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cmath>

namespace kwb::llm {

QList<TokenRow> tokenTable(const QList<LlmExchange> &exchanges)
{
    QList<TokenRow> rows;
    TokenRow total;
    total.callType = QStringLiteral("total");
    for (const auto &x : exchanges) {
        auto it = std::find_if(rows.begin(), rows.end(), [&](const TokenRow &r) { return r.callType == x.callType; });
        if (it == rows.end()) {
            rows.append(TokenRow{x.callType});
            it = rows.end() - 1;
        }
        for (TokenRow *r : {&*it, &total}) {
            r->input += x.inputTokens;
            r->output += x.outputTokens;
            r->total += x.inputTokens + x.outputTokens;
            r->costUsd += x.costUsd;
            r->calls += 1;
            r->estimated = r->estimated || x.tokensEstimated;
        }
    }
    rows.append(total);
    return rows;
}

QString formatTokenTable(const QList<TokenRow> &rows)
{
    int width = 9;
    for (const auto &r : rows)
        width = std::max<int>(width, r.callType.size());
    QString out = QStringLiteral("%1 %2 %3 %4 %5\n")
                      .arg(QStringLiteral("call type"), -width)
                      .arg(QStringLiteral("input"), 9)
                      .arg(QStringLiteral("output"), 9)
                      .arg(QStringLiteral("total"), 9)
                      .arg(QStringLiteral("cost USD"), 10);
    for (const auto &r : rows)
        out += QStringLiteral("%1 %2 %3 %4 %5%6\n")
                   .arg(r.callType, -width)
                   .arg(r.input, 9)
                   .arg(r.output, 9)
                   .arg(r.total, 9)
                   .arg(r.costUsd, 10, 'f', 4)
                   .arg(r.estimated ? QStringLiteral("  (estimated)") : QString());
    return out;
}

int estimateTokens(const QString &text)
{
    if (text.isEmpty())
        return 0;
    qsizetype ascii = 0, other = 0;
    for (const QChar c : text) {
        if (c.unicode() < 128)
            ++ascii;
        else if (!c.isLowSurrogate())
            ++other;
    }
    return static_cast<int>((ascii + 3) / 4 + other);
}

int estimateTokens(const QList<ChatMessage> &messages)
{
    int n = 0;
    for (const auto &m : messages)
        n += estimateTokens(m.content) + 4; // role and separators, as chat formats add them
    return n;
}

QString promptHash(const QList<ChatMessage> &messages)
{
    QJsonArray a;
    for (const auto &m : messages)
        a.append(QJsonObject{{"role", m.role}, {"content", m.content}});
    const QByteArray canonical = QJsonDocument(a).toJson(QJsonDocument::Compact);
    return QString::fromLatin1(QCryptographicHash::hash(canonical, QCryptographicHash::Sha256).toHex());
}

double costUsd(const ProviderConfig &config, int inputTokens, int outputTokens)
{
    return (inputTokens * config.inputUsdPerMTok + outputTokens * config.outputUsdPerMTok) / 1e6;
}

} // namespace kwb::llm
