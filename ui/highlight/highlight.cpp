// SPDX-License-Identifier: MIT
#include "highlight/highlight.h"

#include <Qsci/qscilexerpython.h>

#ifdef KWB_HAVE_KF6_SYNTAX
#include "highlight/ksyntaxlexer.h"
#include "highlight/ksyntaxrepository.h"

#include <QTextDocument>

#include <KSyntaxHighlighting/SyntaxHighlighter>
#endif

namespace kwb::ui {

#ifdef KWB_HAVE_KF6_SYNTAX

bool haveKSyntaxHighlighting()
{
    return ksyntax::available();
}

bool attachMarkdownHighlighter(QTextDocument *doc, bool dark)
{
    if (!doc || !ksyntax::available())
        return false;
    const auto theme = ksyntax::theme(dark);
    // Only direct children: a caller's own QSyntaxHighlighter is never a KSyntaxHighlighting one.
    auto *h = doc->findChild<KSyntaxHighlighting::SyntaxHighlighter *>(QString(), Qt::FindDirectChildrenOnly);
    if (h) {
        if (h->theme().name() != theme.name()) {
            h->setTheme(theme);
            h->rehighlight(); // setTheme alone leaves already formatted blocks as they were
        }
        return true;
    }
    h = new KSyntaxHighlighting::SyntaxHighlighter(doc);
    h->setTheme(theme);
    h->setDefinition(ksyntax::definition(QStringLiteral("Markdown")));
    return true;
}

QsciLexer *createPythonLexer(QObject *parent, bool dark)
{
    if (!ksyntax::available())
        return new QsciLexerPython(parent);
    return new KSyntaxLexer(ksyntax::definition(QStringLiteral("Python")), ksyntax::theme(dark), parent);
}

bool isKSyntaxLexer(const QsciLexer *lexer)
{
    return qobject_cast<const KSyntaxLexer *>(lexer) != nullptr;
}

bool setLexerDark(QsciLexer *lexer, bool dark)
{
    auto *k = qobject_cast<KSyntaxLexer *>(lexer);
    if (!k)
        return false;
    k->setTheme(ksyntax::theme(dark));
    return true;
}

#else // Debian 12 and other builds without KF6: everything falls back to the caller's own choice.

bool haveKSyntaxHighlighting()
{
    return false;
}

bool attachMarkdownHighlighter(QTextDocument *, bool)
{
    return false;
}

QsciLexer *createPythonLexer(QObject *parent, bool)
{
    return new QsciLexerPython(parent);
}

bool isKSyntaxLexer(const QsciLexer *)
{
    return false;
}

bool setLexerDark(QsciLexer *, bool)
{
    return false;
}

#endif

} // namespace kwb::ui
