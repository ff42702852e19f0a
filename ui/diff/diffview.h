// SPDX-License-Identifier: MIT
#pragma once

#include "diff/textdiff.h"
#include "model/run.h"

#include <QHash>
#include <QList>
#include <QWidget>

#include <functional>

class QAction;
class QComboBox;
class QLabel;
class QStackedWidget;
class QToolButton;
class QsciScintilla;

namespace kwb {

/// Two texts compared: side by side (two aligned QScintilla editors, Python highlighting, line
/// numbers, synchronised scrolling, changed lines tinted, changed characters boxed) or inline
/// (one unified column). Next/previous change moves between hunks (Alt+Down / Alt+Up while the
/// view has focus). A header picks any two candidates of the run, with quick picks relative to
/// the current candidate (parent → child, seed → repair → algo-opt). The diff is computed on the
/// UI thread: kwb_diff takes a few ms for two 1,000-line kernels (see kwb_bench_ui_diff).
class DiffView : public QWidget
{
    Q_OBJECT
public:
    enum class Mode { SideBySide, Inline };
    /// The Scintilla indicator that boxes changed characters; editor line markers are numbered
    /// by LineMarker.
    static constexpr int ChangeIndicator = 9;
    enum LineMarker { RemovedMarker = 1, AddedMarker = 2, ChangedLeftMarker = 3, ChangedRightMarker = 4,
                      FillerMarker = 5, CurrentMarker = 6 };
    /// Quick picks, relative to the current candidate's lineage.
    enum class QuickPick { ParentToChild, SeedToRepair, RepairToAlgoOpt, SeedToAlgoOpt };

    explicit DiffView(QWidget *parent = nullptr);

    /// The run whose candidates the pickers list; code is read through the code provider
    /// (default: store::readCode(runDir, candidate)). Clears the shown diff.
    void setRun(const Run &run, const QString &runDir);
    /// A live run grew or changed: refreshes the pickers and keeps the diff on display (code of a
    /// candidate id never changes, so the code cache stays).
    void updateRun(const Run &run);
    /// Replaces how a candidate's code is obtained (tests, live runs that keep code in memory).
    void setCodeProvider(std::function<QString(const Candidate &)> provider);
    /// The candidate quick picks are relative to (the tree's selection).
    void setCurrentCandidate(const QString &id);

    /// Diffs two candidates of the run; false when either id is unknown.
    bool compareCandidates(const QString &leftId, const QString &rightId);
    /// The (left, right) ids a quick pick means for the current candidate; empty ids when it does
    /// not apply (no parent, no repair in the lineage, ...).
    QPair<QString, QString> quickPickIds(QuickPick pick) const;
    bool applyQuickPick(QuickPick pick);

    /// Diffs two arbitrary texts (prompts, edited code); `highlightPython` switches the lexer.
    void compareTexts(const QString &leftTitle, const QString &left, const QString &rightTitle, const QString &right,
                      bool highlightPython = true);
    /// Diffs the prompts (all messages, "### role" headed) of two LLM calls, without highlighting.
    void compareExchanges(const LlmExchange &left, const LlmExchange &right);
    /// The text compareExchanges() diffs for one call.
    static QString promptText(const LlmExchange &x);

    void setMode(Mode mode);
    Mode mode() const { return m_mode; }
    void setIntraLineGranularity(diff::Granularity g);
    void setDark(bool dark);

    /// Moves to the next / previous hunk; false (and no move) at the end / start.
    bool nextChange();
    bool previousChange();
    /// Index of the current hunk, -1 when there is none.
    int currentChange() const { return m_current; }
    int changeCount() const { return static_cast<int>(m_result.hunks.size()); }
    /// The editor line (0-based) where a hunk starts in the current mode.
    int hunkRow(int hunk) const;

    const diff::DiffResult &result() const { return m_result; }
    QString leftId() const { return m_leftId; }
    QString rightId() const { return m_rightId; }
    QsciScintilla *leftEditor() const { return m_left; }
    QsciScintilla *rightEditor() const { return m_right; }
    QsciScintilla *inlineEditor() const { return m_inline; }
    /// The navigation and mode actions (with shortcuts) for the help dialog.
    QList<QAction *> actions() const { return m_actions; }

signals:
    /// The current hunk changed (index -1: none); `count` hunks in all.
    void changeNavigated(int index, int count);
    /// A new pair of texts is shown (ids are empty for compareTexts).
    void diffShown(const QString &leftId, const QString &rightId);

private:
    void buildUi();
    void fillPickers();
    void onPickerChanged();
    void populate();
    void populateSideBySide();
    void populateInline();
    void goToChange(int index);
    void updateSummary();
    void applyColours();
    QString codeOf(const QString &id);
    QString pickerLabel(const Candidate &c) const;

    QComboBox *m_leftPicker = nullptr;
    QComboBox *m_rightPicker = nullptr;
    QComboBox *m_quickPick = nullptr;
    QToolButton *m_modeButton = nullptr;
    QLabel *m_summary = nullptr;
    QLabel *m_leftTitle = nullptr;
    QLabel *m_rightTitle = nullptr;
    QStackedWidget *m_stack = nullptr;
    QsciScintilla *m_left = nullptr;
    QsciScintilla *m_right = nullptr;
    QsciScintilla *m_inline = nullptr;
    QList<QAction *> m_actions;

    Run m_run;
    QString m_runDir;
    QString m_currentId;
    QString m_leftId, m_rightId;
    QString m_leftText, m_rightText;
    QString m_leftName, m_rightName;
    std::function<QString(const Candidate &)> m_codeProvider;
    QHash<QString, QString> m_codeCache;
    diff::DiffResult m_result;
    diff::Options m_options;
    QList<int> m_inlineRows; ///< inline editor row of each pair's first line
    Mode m_mode = Mode::SideBySide;
    int m_current = -1;
    bool m_dark = false;
    bool m_python = true;
    bool m_syncing = false;
    int m_syncedTop = 0; ///< the first line both sides were last put at
    long m_syncedX = 0;
    bool m_fillingPickers = false;
};

} // namespace kwb
