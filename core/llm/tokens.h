// SPDX-License-Identifier: MIT
#pragma once

#include "llm/providerconfig.h"
#include "model/llmexchange.h"

#include <QList>
#include <QString>

namespace kwb::llm {

/// One row of a run's token table (the seeds' table: call type, input, output, total).
struct TokenRow {
    QString callType; ///< "total" for the last row
    int input = 0, output = 0, total = 0;
    double costUsd = 0;
    int calls = 0;
    bool estimated = false; ///< some of the figures were estimated
};

/// Rows per call type in order of first appearance (calls of the same type summed), then "total".
QList<TokenRow> tokenTable(const QList<LlmExchange> &exchanges);
/// The table as aligned plain text (for the CLI and reports).
QString formatTokenTable(const QList<TokenRow> &rows);

/// A rough token count for text without usage figures (~4 characters per token for ASCII,
/// one token per non-ASCII character); 0 for empty text.
int estimateTokens(const QString &text);
int estimateTokens(const QList<ChatMessage> &messages);

/// sha256 (hex) of the messages' roles and contents, the replay match key.
QString promptHash(const QList<ChatMessage> &messages);

/// Cost in USD from the provider's prices.
double costUsd(const ProviderConfig &config, int inputTokens, int outputTokens);

} // namespace kwb::llm
