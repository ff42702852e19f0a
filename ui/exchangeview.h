// SPDX-License-Identifier: MIT
#pragma once

#include "model/llmexchange.h"

#include <QHash>
#include <QWidget>

class QCheckBox;
class QComboBox;
class QLabel;
class QPlainTextEdit;
class QTabWidget;
class QTimer;

namespace kwb {

class MarkdownHighlighter;

/// The LLM calls behind a candidate: the prompt (all messages), the response, the reasoning apart,
/// tokens, cost and time. Streamed answers are appended live; deltas are batched by a short timer
/// so a fast token stream costs a few repaints a second, not one per token.
class ExchangeView : public QWidget
{
    Q_OBJECT
public:
    explicit ExchangeView(QWidget *parent = nullptr);

    /// The calls of the selected candidate (empty clears the view); the last one is shown first.
    void showExchanges(const QList<LlmExchange> &exchanges);
    /// The exchange on display; empty id when none.
    QString currentExchangeId() const;
    QString promptText() const;
    QString responseText() const;
    QString reasoningText() const;
    QString infoText() const;
    void setDark(bool dark);

    /// Milliseconds between two flushes of streamed text (30–50 ms reads as live).
    static constexpr int kFlushIntervalMs = 40;

public slots:
    /// A call started: shown at once when "Follow live" is on.
    void onExchangeStarted(const kwb::LlmExchange &x);
    /// Streamed text of a running call; batched.
    void onExchangeDelta(const QString &exchangeId, const QString &text);
    /// The call ended: its final record (tokens, cost, time) replaces the streamed one.
    void onExchangeFinished(const kwb::LlmExchange &x);

private:
    void display(int index);
    void flush();
    void updateInfo();
    static QString promptOf(const LlmExchange &x);

    QComboBox *m_picker;
    QCheckBox *m_followLive;
    QLabel *m_info;
    QTabWidget *m_tabs;
    QPlainTextEdit *m_prompt;
    QPlainTextEdit *m_response;
    QPlainTextEdit *m_reasoning;
    QList<MarkdownHighlighter *> m_highlighters;
    QTimer *m_flushTimer;
    QList<LlmExchange> m_shown;
    int m_current = -1;
    QHash<QString, QString> m_pending; ///< exchange id -> text not yet flushed
};

} // namespace kwb
