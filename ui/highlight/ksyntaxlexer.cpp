// SPDX-License-Identifier: MIT
#include "highlight/ksyntaxlexer.h"

#include <QFontDatabase>
#include <Qsci/qsciscintilla.h>

#include <KSyntaxHighlighting/Definition>
#include <KSyntaxHighlighting/FoldingRegion>

namespace kwb::ui {

using KSyntaxHighlighting::Format;
using KSyntaxHighlighting::Theme;

namespace {
bool isReservedStyle(int style)
{
    return style >= QsciScintillaBase::STYLE_DEFAULT && style <= QsciScintillaBase::STYLE_LASTPREDEFINED;
}

// Columns of leading white space, -1 for a blank line (it takes the level of the next code line).
int indentColumns(const QString &text, int tabWidth)
{
    int col = 0;
    for (QChar c : text) {
        if (c == QLatin1Char(' '))
            ++col;
        else if (c == QLatin1Char('\t'))
            col += tabWidth - col % tabWidth;
        else if (c == QLatin1Char('\n') || c == QLatin1Char('\r'))
            return -1;
        else
            return col;
    }
    return -1;
}
} // namespace

KSyntaxLexer::KSyntaxLexer(const KSyntaxHighlighting::Definition &definition, const Theme &theme, QObject *parent)
    : QsciLexerCustom(parent)
    , m_font(QFontDatabase::systemFont(QFontDatabase::FixedFont))
{
    m_formatOfStyle.resize(kMaxStyle + 1);
    AbstractHighlighter::setDefinition(definition);
    AbstractHighlighter::setTheme(theme);
    // Styles exist before the lexer meets an editor: QsciScintilla::setLexer only initialises the
    // styles that have a description.
    QList<KSyntaxHighlighting::Definition> defs { definition };
    defs += definition.includedDefinitions();
    for (const auto &def : std::as_const(defs))
        for (const auto &format : def.formats())
            styleFor(format);
    setDefaultFont(m_font);
    setDefaultColor(defaultColor(0));
    setDefaultPaper(QColor(theme.editorColor(Theme::BackgroundColor)));
}

const char *KSyntaxLexer::language() const
{
    return "KSyntaxHighlighting";
}

QString KSyntaxLexer::description(int style) const
{
    if (style == 0)
        return QStringLiteral("Default");
    if (style < 0 || style > kMaxStyle || !m_formatOfStyle[style].isValid())
        return {};
    return m_formatOfStyle[style].name();
}

QColor KSyntaxLexer::defaultColor(int style) const
{
    const Theme t = theme();
    const Format f = style >= 0 && style <= kMaxStyle ? m_formatOfStyle[style] : Format();
    QColor c = f.isValid() ? f.textColor(t) : QColor();
    return c.isValid() ? c : QColor(t.textColor(Theme::Normal));
}

QColor KSyntaxLexer::defaultPaper(int style) const
{
    const Theme t = theme();
    const Format f = style >= 0 && style <= kMaxStyle ? m_formatOfStyle[style] : Format();
    if (f.isValid() && f.hasBackgroundColor(t))
        return f.backgroundColor(t);
    return QColor(t.editorColor(Theme::BackgroundColor));
}

QFont KSyntaxLexer::defaultFont(int style) const
{
    const Theme t = theme();
    const Format f = style >= 0 && style <= kMaxStyle ? m_formatOfStyle[style] : Format();
    QFont font = m_font;
    if (f.isValid()) {
        font.setBold(f.isBold(t));
        font.setItalic(f.isItalic(t));
        font.setUnderline(f.isUnderline(t));
        font.setStrikeOut(f.isStrikeThrough(t));
    } else {
        font.setBold(t.isBold(Theme::Normal));
        font.setItalic(t.isItalic(Theme::Normal));
    }
    return font;
}

int KSyntaxLexer::styleFor(const Format &format)
{
    if (!format.isValid())
        return 0;
    if (auto it = m_styleOfFormat.constFind(format.id()); it != m_styleOfFormat.cend())
        return *it;
    int style = 1;
    while (style <= kMaxStyle && (isReservedStyle(style) || m_formatOfStyle[style].isValid()))
        ++style;
    if (style > kMaxStyle)
        return 0; // out of styles: plain text beats a wrong colour
    m_formatOfStyle[style] = format;
    m_styleOfFormat.insert(format.id(), style);
    if (editor())
        pushStyle(style); // a late format (from a definition included at run time) after setLexer
    return style;
}

void KSyntaxLexer::pushStyle(int style)
{
    setColor(defaultColor(style), style);
    setPaper(defaultPaper(style), style);
    setFont(defaultFont(style), style);
}

int KSyntaxLexer::styleForFormatName(const QString &name) const
{
    for (int style = 1; style <= kMaxStyle; ++style)
        if (m_formatOfStyle[style].isValid() && m_formatOfStyle[style].name() == name)
            return style;
    return -1;
}

void KSyntaxLexer::setTheme(const Theme &newTheme)
{
    AbstractHighlighter::setTheme(newTheme);
    const QColor paper(newTheme.editorColor(Theme::BackgroundColor));
    setDefaultColor(defaultColor(0));
    setDefaultPaper(paper);
    pushStyle(0);
    for (int style = 1; style <= kMaxStyle; ++style)
        if (m_formatOfStyle[style].isValid())
            pushStyle(style);
    // QsciLexer's defaults reach the editor only in setLexer(): the page behind the text is set here.
    if (auto *ed = editor()) {
        ed->SendScintilla(QsciScintillaBase::SCI_STYLESETBACK, QsciScintillaBase::STYLE_DEFAULT, paper);
        ed->SendScintilla(QsciScintillaBase::SCI_STYLESETFORE, QsciScintillaBase::STYLE_DEFAULT, defaultColor(0));
    }
}

void KSyntaxLexer::applyFormat(int offset, int length, const Format &format)
{
    const int style = styleFor(format);
    const int end = std::min<int>(offset + length, m_lineStyles.size());
    for (int i = std::max(0, offset); i < end; ++i)
        m_lineStyles[i] = static_cast<unsigned char>(style);
}

void KSyntaxLexer::applyFolding(int, int, KSyntaxHighlighting::FoldingRegion region)
{
    if (region.type() == KSyntaxHighlighting::FoldingRegion::Begin) {
        ++m_regionDelta;
    } else if (region.type() == KSyntaxHighlighting::FoldingRegion::End) {
        --m_regionDelta;
    }
}

void KSyntaxLexer::styleText(int start, int end)
{
    QsciScintilla *ed = editor();
    if (!ed)
        return;
    const int lineCount = static_cast<int>(ed->SendScintilla(QsciScintillaBase::SCI_GETLINECOUNT));
    int first = static_cast<int>(ed->SendScintilla(QsciScintillaBase::SCI_LINEFROMPOSITION, start));
    const int last = static_cast<int>(ed->SendScintilla(QsciScintillaBase::SCI_LINEFROMPOSITION, end));
    // Scintilla styles contiguously from its "end styled" mark, so the states of the lines before
    // `first` are current; if some were never stored, start from the first unknown line instead.
    first = std::min<int>(first, static_cast<int>(m_lineStates.size()));
    m_lineStates.resize(lineCount);
    m_regionDepth.resize(lineCount);

    KSyntaxHighlighting::State state = first > 0 ? m_lineStates[first - 1] : KSyntaxHighlighting::State();
    const bool utf8 = ed->isUtf8();
    startStyling(static_cast<int>(ed->SendScintilla(QsciScintillaBase::SCI_POSITIONFROMLINE, first)));
    for (int line = first; line <= last && line < lineCount; ++line) {
        const QString text = ed->text(line); // with its end of line
        qsizetype len = text.size();
        while (len > 0 && (text[len - 1] == QLatin1Char('\n') || text[len - 1] == QLatin1Char('\r')))
            --len;
        m_lineStyles.fill(0, text.size());
        m_regionDelta = 0;
        state = highlightLine(QStringView(text).left(len), state);
        m_lineStates[line] = state;

        // Runs of one style, measured in the document's bytes; the last run takes whatever the line
        // has left, so a conversion quirk can never shift the styling of the following lines.
        const int lineBytes = static_cast<int>(ed->SendScintilla(QsciScintillaBase::SCI_LINELENGTH, line));
        int used = 0;
        for (qsizetype i = 0; i < text.size();) {
            qsizetype j = i;
            while (j < text.size() && m_lineStyles[j] == m_lineStyles[i])
                ++j;
            const QStringView run = QStringView(text).mid(i, j - i);
            int bytes = utf8 ? static_cast<int>(run.toUtf8().size()) : static_cast<int>(run.size());
            if (j == text.size())
                bytes = lineBytes - used;
            setStyling(std::max(0, bytes), m_lineStyles[i]);
            used += bytes;
            i = j;
        }
        setFoldLevels(line, text);
    }
}

void KSyntaxLexer::setFoldLevels(int line, const QString &text)
{
    QsciScintilla *ed = editor();
    const int base = QsciScintillaBase::SC_FOLDLEVELBASE;
    if (definition().indentationBasedFoldingEnabled()) {
        // Python: a line's level is its indentation; a code line that indents deeper than the code
        // line above makes that one a fold header; blank lines in between join the deeper block.
        const int tab = std::max(1, ed->tabWidth());
        const int indent = indentColumns(text, tab);
        if (indent < 0) {
            ed->SendScintilla(
                QsciScintillaBase::SCI_SETFOLDLEVEL, line, base | QsciScintillaBase::SC_FOLDLEVELWHITEFLAG);
            return;
        }
        // Levels only need to order the lines, so the column itself is the level: no guess about
        // the indentation width (QScintilla's default tab width of 8 would merge 4-space blocks).
        const int level = base + std::min(indent, QsciScintillaBase::SC_FOLDLEVELNUMBERMASK - base);
        ed->SendScintilla(QsciScintillaBase::SCI_SETFOLDLEVEL, line, level);
        int prev = line - 1;
        while (prev >= 0
            && (ed->SendScintilla(QsciScintillaBase::SCI_GETFOLDLEVEL, prev)
                & QsciScintillaBase::SC_FOLDLEVELWHITEFLAG))
            --prev;
        for (int blank = prev + 1; blank < line; ++blank)
            ed->SendScintilla(
                QsciScintillaBase::SCI_SETFOLDLEVEL, blank, level | QsciScintillaBase::SC_FOLDLEVELWHITEFLAG);
        if (prev >= 0) {
            const long prevLevel = ed->SendScintilla(QsciScintillaBase::SCI_GETFOLDLEVEL, prev)
                & QsciScintillaBase::SC_FOLDLEVELNUMBERMASK;
            ed->SendScintilla(QsciScintillaBase::SCI_SETFOLDLEVEL, prev,
                prevLevel | (level > prevLevel ? QsciScintillaBase::SC_FOLDLEVELHEADERFLAG : 0));
        }
        return;
    }
    // Region folding ({ }, #region ...): the level is the depth at the start of the line; a line that
    // leaves more regions open than it found is a header.
    const int depthBefore = line > 0 ? m_regionDepth[line - 1] : 0;
    const int depthAfter = std::max(0, depthBefore + m_regionDelta);
    m_regionDepth[line] = depthAfter;
    int level = base + depthBefore;
    if (depthAfter > depthBefore)
        level |= QsciScintillaBase::SC_FOLDLEVELHEADERFLAG;
    ed->SendScintilla(QsciScintillaBase::SCI_SETFOLDLEVEL, line, level);
}

} // namespace kwb::ui
