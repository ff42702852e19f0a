// SPDX-License-Identifier: MIT
#pragma once

#include <QDateTime>
#include <QList>
#include <QString>

namespace kwb {

struct ChatMessage {
    QString role; ///< "system", "user", "assistant"
    QString content;
    bool operator==(const ChatMessage &) const = default;
};

/// One call to an LLM: what was sent, what came back, what it cost. Never holds an API key.
struct LlmExchange {
    QString id; ///< unique in the run, e.g. "x0007"
    QString callType; ///< e.g. "seed1", "seed2_repair1", "algorithm_analysis_seed1", "stage_grid"
    QString provider;
    QString model;
    QList<ChatMessage> messages; ///< the prompt (whole conversation sent)
    QString response; ///< the answer text
    QString reasoning; ///< reasoning text kept apart (DeepSeek's reasoning_content)
    int inputTokens = 0;
    int outputTokens = 0;
    bool tokensEstimated = false;
    double costUsd = 0.0;
    qint64 durationMs = 0;
    QDateTime startedAt;
    QString error; ///< empty when the call succeeded
    QString promptHash; ///< sha256 of the messages, for replay matching
    QString candidateId; ///< the candidate this call produced, if any
    bool operator==(const LlmExchange &) const = default;
};

} // namespace kwb
