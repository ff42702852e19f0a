// SPDX-License-Identifier: MIT
#pragma once

// Built only with KSyntaxHighlighting (KF6); other ui code reaches it through highlight/highlight.h.

#include <QFont>
#include <QHash>
#include <QList>
#include <Qsci/qscilexercustom.h>

#include <KSyntaxHighlighting/AbstractHighlighter>
#include <KSyntaxHighlighting/Format>
#include <KSyntaxHighlighting/State>
#include <KSyntaxHighlighting/Theme>
#include <vector>

namespace kwb::ui {

/// A QScintilla lexer driven by a KSyntaxHighlighting definition and theme. Each KSyntaxHighlighting
/// format gets its own Scintilla style (colour, background, bold, italic, underline, strike-out from
/// the theme); styleText() runs the highlighter line by line and keeps the highlighter state at the
/// end of every line, so a restyle that starts mid-document continues inside multi-line strings and
/// comments correctly. Fold levels follow the definition: indentation for Python, regions otherwise.
class KSyntaxLexer : public QsciLexerCustom, public KSyntaxHighlighting::AbstractHighlighter {
    Q_OBJECT
    Q_INTERFACES(KSyntaxHighlighting::AbstractHighlighter)
public:
    KSyntaxLexer(const KSyntaxHighlighting::Definition &definition, const KSyntaxHighlighting::Theme &theme,
        QObject *parent = nullptr);

    const char *language() const override;
    QString description(int style) const override;
    QColor defaultColor(int style) const override;
    QColor defaultPaper(int style) const override;
    QFont defaultFont(int style) const override;
    void styleText(int start, int end) override;

    /// Switches theme and pushes the new colours of every style to the editor.
    void setTheme(const KSyntaxHighlighting::Theme &theme) override;
    /// The Scintilla style that text of the named format (e.g. "Keyword") gets; -1 if none.
    int styleForFormatName(const QString &name) const;

    /// Style 0 is text that no rule formats; formats take 1..31 and 40..kMaxStyle (32–39 are
    /// Scintilla's predefined styles; QsciLexer's "all styles" loops stop at 127).
    static constexpr int kMaxStyle = 127;

protected:
    void applyFormat(int offset, int length, const KSyntaxHighlighting::Format &format) override;
    void applyFolding(int offset, int length, KSyntaxHighlighting::FoldingRegion region) override;

private:
    int styleFor(const KSyntaxHighlighting::Format &format);
    void pushStyle(int style);
    void setFoldLevels(int line, const QString &text);

    QFont m_font;
    QList<KSyntaxHighlighting::Format> m_formatOfStyle; ///< index = style; invalid for 0 and 32..39
    QHash<int, int> m_styleOfFormat; ///< Format::id() -> style
    std::vector<KSyntaxHighlighting::State> m_lineStates; ///< highlighter state at the end of each line
    std::vector<int> m_regionDepth; ///< open folding regions at the end of each line
    QList<unsigned char> m_lineStyles; ///< style per UTF-16 unit of the line being styled
    int m_regionDelta = 0; ///< regions opened minus closed on the current line
};

} // namespace kwb::ui
