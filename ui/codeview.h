// SPDX-License-Identifier: MIT
#pragma once

#include <QPair>
#include <QWidget>

class QLabel;
class QsciScintilla;
class QsciLexer;

namespace kwb {

/// A candidate's source in a QScintilla editor: Python highlighting, line numbers, folding,
/// markers on the lines detectors point at. Read-only unless a gate allows "edit code".
class CodeView : public QWidget
{
    Q_OBJECT
public:
    explicit CodeView(QWidget *parent = nullptr);

    /// Shows a candidate's code (an empty id clears the view); drops earlier markers.
    void showCode(const QString &candidateId, const QString &code);
    void clear() { showCode({}, {}); }
    QString candidateId() const { return m_candidateId; }
    QString code() const;

    /// Marks lines (1-based, inclusive ranges) that verdicts point at: a margin symbol and a tinted line.
    void setEvidenceLines(const QList<QPair<int, int>> &ranges);
    /// Moves to lines first..last (1-based), selects them and marks them as the current evidence.
    void showLines(int firstLine, int lastLine);

    /// Editing is allowed only while an "edit code" gate is open.
    void setEditable(bool editable);
    bool isEditable() const;
    void setDark(bool dark);

    QsciScintilla *editor() const { return m_editor; }
    /// 1-based lines that carry an evidence (kind = 0) or current (kind = 1) marker; for tests and tools.
    QList<int> markedLines(int kind = 0) const;

signals:
    void codeChanged();

private:
    void applyColours();
    void applyPythonLexerColours(const QFont &mono, const QColor &ink);
    void applyEditorColours(const QColor &ink);
    void updateHeader();

    QLabel *m_header;
    QsciScintilla *m_editor;
    QsciLexer *m_lexer; ///< KSyntaxHighlighting lexer with KF6, else QsciLexerPython
    QString m_candidateId;
    bool m_dark = false;
};

} // namespace kwb
