// SPDX-License-Identifier: MIT
#include "exchangeview.h"

#include "highlight/highlight.h"

#include "markdownhighlighter.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPlainTextEdit>
#include <QScrollBar>
#include <QTabWidget>
#include <QTimer>
#include <QVBoxLayout>

namespace kwb {

namespace {
QPlainTextEdit *makeText(QWidget *parent, const QString &name)
{
    auto *edit = new QPlainTextEdit(parent);
    edit->setObjectName(name);
    edit->setReadOnly(true);
    edit->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    return edit;
}

QString pickerText(const LlmExchange &x)
{
    QString s = QStringLiteral("%1  %2").arg(x.id, x.callType);
    if (!x.model.isEmpty())
        s += QStringLiteral("  ·  ") + x.model;
    if (!x.error.isEmpty())
        s += QStringLiteral("  ·  failed");
    return s;
}

// Appends without moving a reader who scrolled up; follows the end when the reader is at the end.
void appendKeepingScroll(QPlainTextEdit *edit, const QString &text)
{
    QScrollBar *bar = edit->verticalScrollBar();
    const bool atEnd = bar->value() >= bar->maximum() - 2;
    QTextCursor cursor(edit->document());
    cursor.movePosition(QTextCursor::End);
    cursor.insertText(text);
    if (atEnd)
        bar->setValue(bar->maximum());
}
} // namespace

ExchangeView::ExchangeView(QWidget *parent)
    : QWidget(parent)
    , m_picker(new QComboBox(this))
    , m_followLive(new QCheckBox(tr("Follow live"), this))
    , m_info(new QLabel(this))
    , m_tabs(new QTabWidget(this))
    , m_prompt(makeText(this, QStringLiteral("exchangePrompt")))
    , m_response(makeText(this, QStringLiteral("exchangeResponse")))
    , m_reasoning(makeText(this, QStringLiteral("exchangeReasoning")))
    , m_flushTimer(new QTimer(this))
{
    m_followLive->setChecked(true);
    m_followLive->setToolTip(tr("Show each LLM call as it starts and stream its answer"));
    m_info->setTextFormat(Qt::PlainText);
    // Two fixed lines, no word wrap: a wrapping label in a dock gets squeezed and clipped.
    m_info->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Minimum);
    m_tabs->addTab(m_prompt, tr("Prompt"));
    m_tabs->addTab(m_response, tr("Response"));
    m_tabs->addTab(m_reasoning, tr("Reasoning"));
    // KSyntaxHighlighting's Markdown definition and theme when built with KF6, else our own highlighter.
    for (auto *edit : {m_prompt, m_response, m_reasoning})
        if (!ui::attachMarkdownHighlighter(edit->document(), false))
            m_highlighters.append(new MarkdownHighlighter(edit->document()));

    m_flushTimer->setInterval(kFlushIntervalMs);
    m_flushTimer->setSingleShot(true);
    connect(m_flushTimer, &QTimer::timeout, this, &ExchangeView::flush);
    connect(m_picker, &QComboBox::currentIndexChanged, this, &ExchangeView::display);

    auto *top = new QHBoxLayout;
    top->addWidget(m_picker, 1);
    top->addWidget(m_followLive);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addLayout(top);
    layout->addWidget(m_info);
    layout->addWidget(m_tabs, 1);
    showExchanges({});
}

void ExchangeView::showExchanges(const QList<LlmExchange> &exchanges)
{
    flush();
    m_shown = exchanges;
    const QSignalBlocker block(m_picker);
    m_picker->clear();
    for (const auto &x : exchanges) {
        m_picker->addItem(pickerText(x), x.id);
        m_picker->setItemData(m_picker->count() - 1, pickerText(x), Qt::ToolTipRole);
    }
    // The last call is the one that produced the code; earlier ones are the analysis or the seed.
    m_picker->setCurrentIndex(int(exchanges.size()) - 1);
    display(int(exchanges.size()) - 1);
}

QString ExchangeView::currentExchangeId() const
{
    return m_current >= 0 ? m_shown[m_current].id : QString();
}

QString ExchangeView::promptText() const
{
    return m_prompt->toPlainText();
}

QString ExchangeView::responseText() const
{
    return m_response->toPlainText();
}

QString ExchangeView::reasoningText() const
{
    return m_reasoning->toPlainText();
}

QString ExchangeView::infoText() const
{
    return m_info->text();
}

void ExchangeView::setDark(bool dark)
{
    if (m_highlighters.isEmpty()) {
        for (auto *edit : {m_prompt, m_response, m_reasoning})
            ui::attachMarkdownHighlighter(edit->document(), dark);
        return;
    }
    for (auto *h : m_highlighters)
        h->setDark(dark);
}

QString ExchangeView::promptOf(const LlmExchange &x)
{
    QString text;
    for (const auto &m : x.messages)
        text += QStringLiteral("=== %1 ===\n%2\n\n").arg(m.role, m.content);
    return text;
}

void ExchangeView::display(int index)
{
    m_current = index >= 0 && index < m_shown.size() ? index : -1;
    if (m_current < 0) {
        m_prompt->clear();
        m_response->clear();
        m_reasoning->clear();
        m_info->setText(tr("No LLM call for this selection"));
        m_tabs->setTabText(2, tr("Reasoning"));
        return;
    }
    const LlmExchange &x = m_shown[m_current];
    m_prompt->setPlainText(promptOf(x));
    m_response->setPlainText(x.error.isEmpty() ? x.response : x.response + tr("\n\n[call failed: %1]").arg(x.error));
    m_reasoning->setPlainText(x.reasoning);
    m_tabs->setTabText(2, x.reasoning.isEmpty() ? tr("Reasoning (none)") : tr("Reasoning"));
    updateInfo();
}

void ExchangeView::updateInfo()
{
    if (m_current < 0)
        return;
    const LlmExchange &x = m_shown[m_current];
    const QLocale loc;
    // Two short lines (both fit a 320 px dock); the tooltip has everything, the start time too.
    QString first = tr("%1 / %2").arg(x.provider.isEmpty() ? tr("provider?") : x.provider,
                                      x.model.isEmpty() ? tr("model?") : x.model);
    first += tr("  ·  %1 s").arg(x.durationMs / 1000.0, 0, 'f', 1);
    const QString second = tr("%1 in + %2 out tokens%3  ·  $%4")
                               .arg(loc.toString(x.inputTokens), loc.toString(x.outputTokens),
                                    x.tokensEstimated ? tr(" (est.)") : QString())
                               .arg(x.costUsd, 0, 'f', 4);
    m_info->setText(first + QLatin1Char('\n') + second);
    QString tip = first + QLatin1Char('\n') + second;
    if (x.startedAt.isValid())
        tip += tr("\nstarted %1").arg(x.startedAt.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss")));
    if (x.tokensEstimated)
        tip += tr("\ntoken counts estimated from the text");
    m_info->setToolTip(tip);
}

void ExchangeView::onExchangeStarted(const LlmExchange &x)
{
    if (!m_followLive->isChecked())
        return;
    QList<LlmExchange> shown = m_shown;
    shown.append(x);
    showExchanges(shown);
    m_tabs->setCurrentWidget(m_response);
}

void ExchangeView::onExchangeDelta(const QString &exchangeId, const QString &text)
{
    m_pending[exchangeId] += text;
    if (!m_flushTimer->isActive())
        m_flushTimer->start();
}

void ExchangeView::flush()
{
    m_flushTimer->stop();
    for (auto it = m_pending.cbegin(); it != m_pending.cend(); ++it) {
        for (int i = 0; i < m_shown.size(); ++i) {
            if (m_shown[i].id != it.key())
                continue;
            m_shown[i].response += it.value();
            if (i == m_current)
                appendKeepingScroll(m_response, it.value());
        }
    }
    m_pending.clear();
}

void ExchangeView::onExchangeFinished(const LlmExchange &x)
{
    flush();
    for (int i = 0; i < m_shown.size(); ++i) {
        if (m_shown[i].id != x.id)
            continue;
        const bool sameText = m_shown[i].response == x.response;
        m_shown[i] = x;
        m_picker->setItemText(i, pickerText(x));
        if (i == m_current) {
            // The streamed text is normally the final text; re-setting it would jump the scroll position.
            if (!sameText)
                display(i);
            else
                updateInfo();
        }
    }
}

} // namespace kwb
