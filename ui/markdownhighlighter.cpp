// SPDX-License-Identifier: MIT
#include "markdownhighlighter.h"

#include <QFontDatabase>

namespace kwb {

MarkdownHighlighter::MarkdownHighlighter(QTextDocument *document)
    : QSyntaxHighlighter(document)
    , m_headingRe(QStringLiteral("^(#{1,6}\\s.*|=== .* ===)$"))
    , m_boldRe(QStringLiteral("\\*\\*[^*]+\\*\\*|__[^_]+__"))
    , m_inlineCodeRe(QStringLiteral("`[^`]+`"))
    , m_keywordRe(QStringLiteral(
          "\\b(def|class|return|import|from|as|if|elif|else|for|while|in|not|and|or|is|None|True|False|with|"
          "lambda|yield|try|except|finally|raise|pass|break|continue|global|assert|self|"
          "void|int|float|const|auto|struct|template|typename|__global__|__device__|__shared__|constexpr)\\b"))
    , m_stringRe(QStringLiteral("\"[^\"]*\"|'[^']*'"))
    , m_commentRe(QStringLiteral("(#|//).*$"))
    , m_numberRe(QStringLiteral("\\b\\d+(\\.\\d+)?([eE][-+]?\\d+)?\\b"))
{
    makeFormats();
}

void MarkdownHighlighter::setDark(bool dark)
{
    m_dark = dark;
    makeFormats();
    rehighlight();
}

void MarkdownHighlighter::makeFormats()
{
    const QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    const QColor codeBg = m_dark ? QColor(0x2a, 0x2c, 0x31) : QColor(0xf3, 0xf4, 0xf6);
    m_heading = {};
    m_heading.setFontWeight(QFont::Bold);
    m_heading.setForeground(m_dark ? QColor(0x8a, 0xb4, 0xf8) : QColor(0x1f, 0x4e, 0x79));
    m_bold = {};
    m_bold.setFontWeight(QFont::Bold);
    m_inlineCode = {};
    m_inlineCode.setFont(mono);
    m_inlineCode.setBackground(codeBg);
    m_inlineCode.setForeground(m_dark ? QColor(0xce, 0x91, 0x78) : QColor(0xa3, 0x15, 0x15));
    m_code = {};
    m_code.setFont(mono);
    m_code.setBackground(codeBg);
    m_fence = m_code;
    m_fence.setForeground(m_dark ? QColor(0x80, 0x80, 0x80) : QColor(0x90, 0x90, 0x90));
    m_keyword = m_code;
    m_keyword.setForeground(m_dark ? QColor(0x56, 0x9c, 0xd6) : QColor(0x00, 0x00, 0xc0));
    m_keyword.setFontWeight(QFont::Bold);
    m_string = m_code;
    m_string.setForeground(m_dark ? QColor(0xce, 0x91, 0x78) : QColor(0x00, 0x80, 0x00));
    m_comment = m_code;
    m_comment.setForeground(m_dark ? QColor(0x7f, 0x9f, 0x7f) : QColor(0x70, 0x70, 0x70));
    m_comment.setFontItalic(true);
    m_number = m_code;
    m_number.setForeground(m_dark ? QColor(0xb5, 0xce, 0xa8) : QColor(0x80, 0x40, 0x00));
}

void MarkdownHighlighter::highlightBlock(const QString &text)
{
    const bool fenceLine = text.trimmed().startsWith(QLatin1String("```"));
    const int previous = previousBlockState() == InFence ? InFence : Normal;
    if (fenceLine) {
        setFormat(0, int(text.size()), m_fence);
        setCurrentBlockState(previous == InFence ? Normal : InFence);
        return;
    }
    setCurrentBlockState(previous);
    if (previous == InFence) {
        highlightCode(text);
        return;
    }
    if (m_headingRe.match(text).hasMatch()) {
        setFormat(0, int(text.size()), m_heading);
        return;
    }
    for (auto it = m_boldRe.globalMatch(text); it.hasNext();) {
        const auto m = it.next();
        setFormat(int(m.capturedStart()), int(m.capturedLength()), m_bold);
    }
    for (auto it = m_inlineCodeRe.globalMatch(text); it.hasNext();) {
        const auto m = it.next();
        setFormat(int(m.capturedStart()), int(m.capturedLength()), m_inlineCode);
    }
}

void MarkdownHighlighter::highlightCode(const QString &text)
{
    setFormat(0, int(text.size()), m_code);
    auto apply = [&](const QRegularExpression &re, const QTextCharFormat &f) {
        for (auto it = re.globalMatch(text); it.hasNext();) {
            const auto m = it.next();
            setFormat(int(m.capturedStart()), int(m.capturedLength()), f);
        }
    };
    apply(m_numberRe, m_number);
    apply(m_keywordRe, m_keyword);
    apply(m_stringRe, m_string);
    // A comment marker inside a string is not a comment: only colour it when it starts outside strings.
    const auto c = m_commentRe.match(text);
    if (c.hasMatch() && format(int(c.capturedStart())) != m_string)
        setFormat(int(c.capturedStart()), int(text.size() - c.capturedStart()), m_comment);
}

} // namespace kwb
