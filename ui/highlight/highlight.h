// SPDX-License-Identifier: MIT
#pragma once

// The highlighting factory: one stable API whatever the build. With KSyntaxHighlighting (KF6) the
// LLM view and the code editor use KDE's syntax definitions and Breeze themes; without it (Debian 12)
// every function reports "not handled" and the caller keeps its own highlighter or QScintilla lexer.
// No KF6 header is reachable from here, so any ui file may include it.

class QObject;
class QTextDocument;
class QsciLexer;

namespace kwb::ui {

/// True when this build has KSyntaxHighlighting and its "Markdown" and "Python" definitions and
/// light/dark themes were found at run time (the data package can be missing even when the library
/// is linked).
bool haveKSyntaxHighlighting();

/// Attaches a KSyntaxHighlighting Markdown highlighter (fenced code highlighted by language) with the
/// light or dark Breeze theme to doc, or re-themes the one attached earlier. Returns false when
/// KSyntaxHighlighting is not available: nothing is attached and the caller keeps its own highlighter.
bool attachMarkdownHighlighter(QTextDocument *doc, bool dark);

/// A Python lexer for QsciScintilla owned by parent: a QsciLexerCustom driven by KSyntaxHighlighting's
/// "Python" definition and theme when available, else a plain QsciLexerPython (its own colours; the
/// caller styles it as before).
QsciLexer *createPythonLexer(QObject *parent, bool dark);

/// True when lexer came from KSyntaxHighlighting (its colours come from a theme, not from the caller).
bool isKSyntaxLexer(const QsciLexer *lexer);

/// Switches a KSyntaxHighlighting lexer to the light or dark theme and returns true; returns false
/// (and changes nothing) for any other lexer, which the caller colours itself.
bool setLexerDark(QsciLexer *lexer, bool dark);

} // namespace kwb::ui
