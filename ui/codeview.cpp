// SPDX-License-Identifier: MIT
#include "codeview.h"

#include "highlight/highlight.h"

#include <Qsci/qscilexerpython.h>
#include <Qsci/qsciscintilla.h>

#include <QFontDatabase>
#include <QLabel>
#include <QVBoxLayout>

namespace kwb {

namespace {
// Marker numbers: a margin symbol and a line tint for every evidence line, a stronger pair for the
// lines of the verdict a person clicked.
enum Marker { EvidenceSymbol = 1, EvidenceLine = 2, CurrentSymbol = 3, CurrentLine = 4 };
constexpr int kSymbolMargin = 1;
} // namespace

CodeView::CodeView(QWidget *parent)
    : QWidget(parent)
    , m_header(new QLabel(this))
    , m_editor(new QsciScintilla(this))
    , m_lexer(ui::createPythonLexer(m_editor, false))
{
    m_editor->setObjectName(QStringLiteral("codeEditor"));
    m_editor->setUtf8(true);
    m_editor->setLexer(m_lexer);
    m_editor->setFolding(QsciScintilla::BoxedTreeFoldStyle);
    m_editor->setMarginType(0, QsciScintilla::NumberMargin);
    m_editor->setMarginLineNumbers(0, true);
    m_editor->setMarginWidth(0, QStringLiteral("00000"));
    m_editor->setMarginType(kSymbolMargin, QsciScintilla::SymbolMargin);
    m_editor->setMarginWidth(kSymbolMargin, 16);
    m_editor->setMarginMarkerMask(kSymbolMargin, (1 << EvidenceSymbol) | (1 << CurrentSymbol));
    m_editor->markerDefine(QsciScintilla::Circle, EvidenceSymbol);
    m_editor->markerDefine(QsciScintilla::Background, EvidenceLine);
    m_editor->markerDefine(QsciScintilla::RightArrow, CurrentSymbol);
    m_editor->markerDefine(QsciScintilla::Background, CurrentLine);
    m_editor->setIndentationsUseTabs(false);
    m_editor->setTabWidth(4);
    m_editor->setAutoIndent(true);
    m_editor->setCaretLineVisible(true);
    m_editor->setReadOnly(true);
    connect(m_editor, &QsciScintilla::textChanged, this, &CodeView::codeChanged);

    m_header->setTextFormat(Qt::PlainText);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(m_header);
    layout->addWidget(m_editor);
    applyColours();
    showCode({}, {});
}

void CodeView::showCode(const QString &candidateId, const QString &code)
{
    m_candidateId = candidateId;
    const bool wasReadOnly = m_editor->isReadOnly();
    m_editor->setReadOnly(false); // QScintilla refuses setText on a read-only document
    m_editor->setText(code);
    m_editor->setReadOnly(wasReadOnly);
    m_editor->markerDeleteAll();
    m_editor->setCursorPosition(0, 0);
    m_editor->setFirstVisibleLine(0);
    updateHeader();
}

void CodeView::updateHeader()
{
    m_header->setText(m_candidateId.isEmpty() ? tr("No candidate selected")
                                              : tr("%1  ·  %2 lines  ·  %3")
                                                    .arg(m_candidateId)
                                                    .arg(m_editor->lines())
                                                    .arg(isEditable() ? tr("editing (gate open)") : tr("read-only")));
}

QString CodeView::code() const
{
    return m_editor->text();
}

void CodeView::setEvidenceLines(const QList<QPair<int, int>> &ranges)
{
    m_editor->markerDeleteAll(EvidenceSymbol);
    m_editor->markerDeleteAll(EvidenceLine);
    for (const auto &[first, last] : ranges) {
        if (first <= 0)
            continue;
        for (int line = first; line <= std::max(first, last) && line <= m_editor->lines(); ++line) {
            m_editor->markerAdd(line - 1, EvidenceSymbol);
            m_editor->markerAdd(line - 1, EvidenceLine);
        }
    }
}

void CodeView::showLines(int firstLine, int lastLine)
{
    m_editor->markerDeleteAll(CurrentSymbol);
    m_editor->markerDeleteAll(CurrentLine);
    if (firstLine <= 0 || firstLine > m_editor->lines())
        return;
    lastLine = std::clamp(lastLine, firstLine, m_editor->lines());
    for (int line = firstLine; line <= lastLine; ++line) {
        m_editor->markerAdd(line - 1, CurrentSymbol);
        m_editor->markerAdd(line - 1, CurrentLine);
    }
    // Folded code would hide the evidence: open the folds on the way.
    for (int line = firstLine; line <= lastLine; ++line)
        m_editor->ensureLineVisible(line - 1);
    // A few lines of context above reads better than the evidence glued to the top edge.
    m_editor->setFirstVisibleLine(std::max(0, firstLine - 1 - 3));
    m_editor->setCursorPosition(firstLine - 1, 0);
}

void CodeView::setEditable(bool editable)
{
    m_editor->setReadOnly(!editable);
    applyColours();
    updateHeader();
}

bool CodeView::isEditable() const
{
    return !m_editor->isReadOnly();
}

void CodeView::setDark(bool dark)
{
    m_dark = dark;
    applyColours();
}

QList<int> CodeView::markedLines(int kind) const
{
    const unsigned mask = 1u << (kind == 0 ? EvidenceSymbol : CurrentSymbol);
    QList<int> lines;
    for (int line = 0; line < m_editor->lines(); ++line)
        if (m_editor->markersAtLine(line) & mask)
            lines.append(line + 1);
    return lines;
}

void CodeView::applyColours()
{
    QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    m_editor->setMarginsFont(mono);
    const QColor ink = m_dark ? QColor(0xdc, 0xdc, 0xdc) : QColor(Qt::black);
    // With KF6 the KSyntaxHighlighting lexer takes its fonts and colours from the theme; else
    // QScintilla's Python lexer is coloured here.
    if (!ui::setLexerDark(m_lexer, m_dark))
        applyPythonLexerColours(mono, ink);
    applyEditorColours(ink);
}

void CodeView::applyPythonLexerColours(const QFont &mono, const QColor &ink)
{
    auto *lexer = static_cast<QsciLexerPython *>(m_lexer);
    lexer->setDefaultFont(mono);
    for (int style = 0; style <= QsciLexerPython::Decorator; ++style)
        lexer->setFont(mono, style);
    // The lexer's own colours assume a white page; the dark set keeps its contrast.
    const QColor paper = m_dark ? QColor(0x1e, 0x1f, 0x22) : QColor(Qt::white);
    m_lexer->setDefaultPaper(paper);
    m_lexer->setPaper(paper, -1);
    m_lexer->setDefaultColor(ink);
    if (m_dark) {
        m_lexer->setColor(ink, -1);
        m_lexer->setColor(QColor(0x7f, 0x9f, 0x7f), QsciLexerPython::Comment);
        m_lexer->setColor(QColor(0x7f, 0x9f, 0x7f), QsciLexerPython::CommentBlock);
        m_lexer->setColor(QColor(0xb5, 0xce, 0xa8), QsciLexerPython::Number);
        for (int s : {QsciLexerPython::DoubleQuotedString, QsciLexerPython::SingleQuotedString,
                      QsciLexerPython::TripleSingleQuotedString, QsciLexerPython::TripleDoubleQuotedString})
            m_lexer->setColor(QColor(0xce, 0x91, 0x78), s);
        m_lexer->setColor(QColor(0x56, 0x9c, 0xd6), QsciLexerPython::Keyword);
        m_lexer->setColor(QColor(0x4e, 0xc9, 0xb0), QsciLexerPython::ClassName);
        m_lexer->setColor(QColor(0xdc, 0xdc, 0xaa), QsciLexerPython::FunctionMethodName);
        m_lexer->setColor(QColor(0xc5, 0x86, 0xc0), QsciLexerPython::Decorator);
    } else {
        // Rebuild the lexer's defaults so switching back from dark restores them.
        for (int s = 0; s <= QsciLexerPython::Decorator; ++s)
            m_lexer->setColor(m_lexer->defaultColor(s), s);
    }
}

void CodeView::applyEditorColours(const QColor &ink)
{
    const QColor margin = m_dark ? QColor(0x2b, 0x2d, 0x30) : QColor(0xf0, 0xf0, 0xf0);
    m_editor->setMarginsBackgroundColor(margin);
    m_editor->setMarginsForegroundColor(m_dark ? QColor(0x90, 0x90, 0x90) : QColor(0x70, 0x70, 0x70));
    m_editor->setFoldMarginColors(margin, margin);
    m_editor->setCaretForegroundColor(ink);
    m_editor->setCaretLineBackgroundColor(m_dark ? QColor(0x2a, 0x2d, 0x34) : QColor(0xf5, 0xf7, 0xfb));
    m_editor->setMarkerBackgroundColor(QColor(0xe0, 0x8a, 0x00), EvidenceSymbol);
    m_editor->setMarkerForegroundColor(QColor(0xe0, 0x8a, 0x00), EvidenceSymbol);
    m_editor->setMarkerBackgroundColor(m_dark ? QColor(0x4a, 0x3a, 0x1a) : QColor(0xff, 0xf1, 0xd6), EvidenceLine);
    m_editor->setMarkerBackgroundColor(QColor(0xd0, 0x33, 0x33), CurrentSymbol);
    m_editor->setMarkerForegroundColor(QColor(0xd0, 0x33, 0x33), CurrentSymbol);
    m_editor->setMarkerBackgroundColor(m_dark ? QColor(0x5c, 0x2b, 0x2b) : QColor(0xff, 0xd9, 0xd9), CurrentLine);
    // An editable page is tinted slightly so a person sees at once that typing changes the kernel.
    if (!isEditable())
        return;
    const QColor editPaper = m_dark ? QColor(0x1a, 0x26, 0x1a) : QColor(0xf7, 0xff, 0xf3);
    m_lexer->setPaper(editPaper, -1);
    m_lexer->setDefaultPaper(editPaper);
}

} // namespace kwb
