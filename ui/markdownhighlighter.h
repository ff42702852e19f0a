// SPDX-License-Identifier: MIT
#pragma once

#include <QRegularExpression>
#include <QSyntaxHighlighter>
#include <QTextCharFormat>

namespace kwb {

/// A small Markdown highlighter for LLM prompts and answers: headings, emphasis, inline code,
/// role headers, and fenced code blocks with Python/C++ keywords, strings, comments and numbers.
/// (KSyntaxHighlighting is not available on Debian 12; this covers what LLM text uses.)
class MarkdownHighlighter : public QSyntaxHighlighter
{
    Q_OBJECT
public:
    explicit MarkdownHighlighter(QTextDocument *document);
    void setDark(bool dark);

protected:
    void highlightBlock(const QString &text) override;

private:
    void makeFormats();
    void highlightCode(const QString &text);

    enum State { Normal = 0, InFence = 1 };
    bool m_dark = false;
    QTextCharFormat m_heading, m_bold, m_inlineCode, m_fence, m_code, m_keyword, m_string, m_comment, m_number;
    QRegularExpression m_headingRe, m_boldRe, m_inlineCodeRe, m_keywordRe, m_stringRe, m_commentRe, m_numberRe;
};

} // namespace kwb
