// SPDX-License-Identifier: MIT
// The highlighting factory on both kinds of build: without KF6 everything falls back; with KF6 the
// Markdown highlighter colours fenced code and the KSyntaxHighlighting lexer styles Python.
#include "highlight/highlight.h"

#include <QPlainTextEdit>
#include <QSyntaxHighlighter>
#include <QTest>
#include <QTextBlock>
#include <QTextDocument>
#include <QTextLayout>
#include <Qsci/qscilexerpython.h>
#include <Qsci/qsciscintilla.h>

using namespace kwb;

namespace {

// The foreground colour the highlighter gave to the character at column `col` of `block`
// (invalid when no format covers it).
QColor foregroundAt(const QTextBlock &block, int col)
{
    for (const QTextLayout::FormatRange &r : block.layout()->formats())
        if (col >= r.start && col < r.start + r.length && r.format.hasProperty(QTextFormat::ForegroundBrush))
            return r.format.foreground().color();
    return {};
}

// Colour, weight and slant of the character at `col`: what a reader tells styles apart by.
QString lookAt(const QTextBlock &block, int col)
{
    for (const QTextLayout::FormatRange &r : block.layout()->formats())
        if (col >= r.start && col < r.start + r.length)
            return QStringLiteral("%1 %2 %3")
                .arg(r.format.foreground().color().name())
                .arg(r.format.fontWeight())
                .arg(r.format.fontItalic());
    return QStringLiteral("unformatted");
}

QString look(QsciLexer *lexer, int style)
{
    const QFont f = lexer->font(style);
    return QStringLiteral("%1 %2 %3 %4")
        .arg(lexer->color(style).name(), lexer->paper(style).name())
        .arg(f.bold())
        .arg(f.italic());
}

QTextBlock blockStartingWith(const QTextDocument &doc, const QString &prefix)
{
    for (QTextBlock b = doc.begin(); b.isValid(); b = b.next())
        if (b.text().startsWith(prefix))
            return b;
    return {};
}

int styleAt(QsciScintilla &ed, int line, int index)
{
    const long pos = ed.positionFromLineIndex(line, index);
    return static_cast<int>(ed.SendScintilla(QsciScintillaBase::SCI_GETSTYLEAT, pos));
}

void colouriseAll(QsciScintilla &ed)
{
    ed.SendScintilla(QsciScintillaBase::SCI_COLOURISE, 0L, -1L);
}

const char *const kPython = "def scale(x):\n" // 0
                            "    s = \"\"\"\n" // 1 opens a triple-quoted string
                            "import os\n" // 2 inside the string
                            "\"\"\"\n" // 3 closes it
                            "    return x * 2  # é, ü\n" // 4 multi-byte text before the next line
                            "import sys\n"; // 5 a real import

} // namespace

class TestHighlight : public QObject {
    Q_OBJECT
private slots:
    void buildMatchesRuntime();
    void fallbacksForForeignObjects();
    void pythonLexerKind();
    void markdownFallsBackWithoutKf6();
    void markdownColoursCodeFence();
    void pythonLexerStylesKeywords();
    void pythonLexerRestylesAfterEdit();
    void pythonLexerFoldsByIndentation();
    void pythonLexerSwitchesTheme();
};

void TestHighlight::buildMatchesRuntime()
{
#ifdef KWB_HAVE_KF6_SYNTAX
    // A KF6 build whose definitions are missing at run time would silently test nothing below.
    QVERIFY2(ui::haveKSyntaxHighlighting(), "built with KF6 but the Markdown/Python definitions are missing");
#else
    QVERIFY(!ui::haveKSyntaxHighlighting());
#endif
}

void TestHighlight::fallbacksForForeignObjects()
{
    QsciLexerPython plain;
    QVERIFY(!ui::isKSyntaxLexer(&plain));
    QVERIFY(!ui::isKSyntaxLexer(nullptr));
    QVERIFY(!ui::setLexerDark(&plain, true));
    QVERIFY(!ui::setLexerDark(nullptr, true));
    QVERIFY(!ui::attachMarkdownHighlighter(nullptr, false));
}

void TestHighlight::pythonLexerKind()
{
    QObject owner;
    QsciLexer *lexer = ui::createPythonLexer(&owner, false);
    QVERIFY(lexer);
    QCOMPARE(lexer->parent(), &owner);
    if (ui::haveKSyntaxHighlighting()) {
        QVERIFY(ui::isKSyntaxLexer(lexer));
        QVERIFY(!qobject_cast<QsciLexerPython *>(lexer));
    } else {
        QVERIFY(qobject_cast<QsciLexerPython *>(lexer));
        QVERIFY(!ui::isKSyntaxLexer(lexer));
        QVERIFY(!ui::setLexerDark(lexer, true)); // the caller colours QsciLexerPython itself
    }
}

void TestHighlight::markdownFallsBackWithoutKf6()
{
    if (ui::haveKSyntaxHighlighting())
        QSKIP("KF6 build: the fallback is exercised by the Debian 12 build");
    QTextDocument doc;
    doc.setPlainText(QStringLiteral("```python\ndef f():\n    pass\n```\n"));
    QVERIFY(!ui::attachMarkdownHighlighter(&doc, false));
    QVERIFY(!ui::attachMarkdownHighlighter(&doc, true));
    QVERIFY(doc.findChildren<QSyntaxHighlighter *>().isEmpty()); // the caller keeps its own
}

void TestHighlight::markdownColoursCodeFence()
{
    if (!ui::haveKSyntaxHighlighting())
        QSKIP("built without KF6SyntaxHighlighting (Debian 12); packaging/ci-trixie.sh runs this");
    QPlainTextEdit edit;
    QTextDocument *doc = edit.document();
    doc->setPlainText(QStringLiteral("# Plan\n\n"
                                     "def is just a word here.\n\n"
                                     "```python\n"
                                     "def kernel(x):\n"
                                     "    return x\n"
                                     "```\n"));
    QVERIFY(ui::attachMarkdownHighlighter(doc, false));
    auto highlighters = doc->findChildren<QSyntaxHighlighter *>();
    QCOMPARE(highlighters.size(), 1);
    highlighters.first()->rehighlight();

    const QTextBlock prose = blockStartingWith(*doc, QStringLiteral("def is"));
    const QTextBlock code = blockStartingWith(*doc, QStringLiteral("def kernel"));
    QVERIFY(prose.isValid() && code.isValid());
    const QColor keyword = foregroundAt(code, 0);
    QVERIFY2(keyword.isValid(), "the keyword inside the python fence has no colour");
    // Inside the fence `def` is Python; in the prose around it the same word is plain text. Breeze
    // Light draws keywords bold in the text colour: compare the whole look, not one property.
    QVERIFY(lookAt(prose, 0) != lookAt(code, 0));
    QVERIFY(lookAt(code, 4) != lookAt(code, 0));
    // The heading is formatted too (Markdown definition, not only the embedded Python).
    QVERIFY(foregroundAt(blockStartingWith(*doc, QStringLiteral("# Plan")), 2).isValid());

    // For a person to look at (CI artifact), when a folder is given.
    const QString shots = qEnvironmentVariable("KWB_HIGHLIGHT_SCREENSHOTS");
    if (!shots.isEmpty()) {
        edit.resize(420, 220);
        QVERIFY(edit.grab().save(shots + QStringLiteral("/ksyntax-markdown-light.png")));
    }

    // Dark: the same highlighter is re-themed, not a second one stacked on the document.
    QVERIFY(ui::attachMarkdownHighlighter(doc, true));
    QCOMPARE(doc->findChildren<QSyntaxHighlighter *>().size(), 1);
    const QColor darkKeyword = foregroundAt(code, 0);
    QVERIFY(darkKeyword.isValid());
    QVERIFY(darkKeyword != keyword);
}

void TestHighlight::pythonLexerStylesKeywords()
{
    if (!ui::haveKSyntaxHighlighting())
        QSKIP("built without KF6SyntaxHighlighting (Debian 12); packaging/ci-trixie.sh runs this");
    QsciScintilla ed;
    ed.setUtf8(true);
    QsciLexer *lexer = ui::createPythonLexer(&ed, false);
    ed.setLexer(lexer);
    ed.setText(QString::fromUtf8(kPython));
    colouriseAll(ed);

    const int defStyle = styleAt(ed, 0, 0); // def
    const int identStyle = styleAt(ed, 1, 4); // s
    const int openQuote = styleAt(ed, 1, 8); // """
    const int importInString = styleAt(ed, 2, 0); // import (inside the string)
    const int importReal = styleAt(ed, 5, 0); // import sys
    const int commentStyle = styleAt(ed, 4, 18); // # é, ü
    QVERIFY(defStyle != identStyle);
    // Breeze Light draws keywords bold in the text colour: compare the whole look, not one property.
    QVERIFY(look(lexer, defStyle) != look(lexer, identStyle));
    // The state carried from line 1 to line 2 keeps `import` inside the string...
    QCOMPARE(importInString, openQuote);
    // ...and the state after line 3 closes it again; the multi-byte comment on line 4 does not shift
    // the styles of line 5 (byte lengths, not characters, are styled).
    QVERIFY(importReal != importInString);
    QVERIFY(importReal != identStyle);
    QVERIFY(commentStyle != identStyle && commentStyle != importReal);
    QVERIFY(!lexer->description(defStyle).isEmpty());
}

void TestHighlight::pythonLexerRestylesAfterEdit()
{
    if (!ui::haveKSyntaxHighlighting())
        QSKIP("built without KF6SyntaxHighlighting (Debian 12); packaging/ci-trixie.sh runs this");
    QsciScintilla ed;
    ed.setUtf8(true);
    ed.setLexer(ui::createPythonLexer(&ed, false));
    ed.setText(QString::fromUtf8(kPython));
    colouriseAll(ed);
    const int importReal = styleAt(ed, 5, 0);
    const int commentStyle = styleAt(ed, 4, 18);

    // Opening a string on line 4 (before the comment) turns the rest of the file into string: the
    // restyle that starts at the edited line must carry the new state down to the last line.
    ed.insertAt(QStringLiteral("'''"), 4, 4);
    colouriseAll(ed);
    const int stringStyle = styleAt(ed, 4, 4);
    QVERIFY(stringStyle != importReal);
    QCOMPARE(styleAt(ed, 5, 0), stringStyle);

    // Removing it restores the keyword and the comment.
    ed.setSelection(4, 4, 4, 7);
    ed.removeSelectedText();
    colouriseAll(ed);
    QCOMPARE(styleAt(ed, 5, 0), importReal);
    QCOMPARE(styleAt(ed, 4, 18), commentStyle);
}

void TestHighlight::pythonLexerFoldsByIndentation()
{
    if (!ui::haveKSyntaxHighlighting())
        QSKIP("built without KF6SyntaxHighlighting (Debian 12); packaging/ci-trixie.sh runs this");
    QsciScintilla ed;
    ed.setLexer(ui::createPythonLexer(&ed, false));
    ed.setFolding(QsciScintilla::BoxedTreeFoldStyle);
    ed.setText(QStringLiteral("def f(x):\n    y = x\n\n    return y\nz = 1\n"));
    colouriseAll(ed);
    auto level = [&](int line) { return ed.SendScintilla(QsciScintillaBase::SCI_GETFOLDLEVEL, line); };
    QVERIFY(level(0) & QsciScintillaBase::SC_FOLDLEVELHEADERFLAG);
    QVERIFY(!(level(1) & QsciScintillaBase::SC_FOLDLEVELHEADERFLAG));
    QVERIFY(!(level(4) & QsciScintillaBase::SC_FOLDLEVELHEADERFLAG));
    // Folding the function hides its body, the blank line in it included, and not the next statement.
    ed.foldLine(0);
    QVERIFY(!ed.SendScintilla(QsciScintillaBase::SCI_GETLINEVISIBLE, 1));
    QVERIFY(!ed.SendScintilla(QsciScintillaBase::SCI_GETLINEVISIBLE, 2));
    QVERIFY(!ed.SendScintilla(QsciScintillaBase::SCI_GETLINEVISIBLE, 3));
    QVERIFY(ed.SendScintilla(QsciScintillaBase::SCI_GETLINEVISIBLE, 4));
}

void TestHighlight::pythonLexerSwitchesTheme()
{
    if (!ui::haveKSyntaxHighlighting())
        QSKIP("built without KF6SyntaxHighlighting (Debian 12); packaging/ci-trixie.sh runs this");
    QsciScintilla ed;
    QsciLexer *lexer = ui::createPythonLexer(&ed, false);
    ed.setLexer(lexer);
    ed.setText(QString::fromUtf8(kPython));
    colouriseAll(ed);
    const int defStyle = styleAt(ed, 0, 0);
    const QColor lightKeyword = lexer->color(defStyle);
    const QColor lightPaper = lexer->paper(0);

    QVERIFY(ui::setLexerDark(lexer, true));
    QVERIFY(lexer->color(defStyle) != lightKeyword);
    QVERIFY(lexer->paper(0).lightness() < lightPaper.lightness());
    // The editor got the new colours too, not only the lexer's table.
    const long editorBack = ed.SendScintilla(QsciScintillaBase::SCI_STYLEGETBACK, 0L);
    const QColor back(editorBack & 0xff, (editorBack >> 8) & 0xff, (editorBack >> 16) & 0xff);
    QCOMPARE(back, lexer->paper(0));
    QCOMPARE(styleAt(ed, 0, 0), defStyle); // same styles, new colours

    QVERIFY(ui::setLexerDark(lexer, false));
    QCOMPARE(lexer->color(defStyle), lightKeyword);

    // For a person to look at (CI artifact): the editor in both themes, when a folder is given.
    const QString shots = qEnvironmentVariable("KWB_HIGHLIGHT_SCREENSHOTS");
    if (!shots.isEmpty()) {
        ed.resize(520, 200);
        ed.setFolding(QsciScintilla::BoxedTreeFoldStyle);
        QVERIFY(ed.grab().save(shots + QStringLiteral("/ksyntax-python-light.png")));
        ui::setLexerDark(lexer, true);
        QVERIFY(ed.grab().save(shots + QStringLiteral("/ksyntax-python-dark.png")));
    }
}

QTEST_MAIN(TestHighlight)
#include "tst_highlight.moc"
