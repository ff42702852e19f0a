// SPDX-License-Identifier: MIT
#pragma once

// Line diff of two texts plus the changed characters (or words) inside changed lines, as plain
// values that any view can draw. Used for candidate kernels and for the prompts of two LLM calls.

#include <QList>
#include <QString>
#include <QStringList>

namespace kwb::diff {

enum class LineKind {
    Equal, ///< the same line on both sides
    Insert, ///< only on the right
    Delete, ///< only on the left
    Change, ///< a left line replaced by a right line (intra-line ranges tell what changed)
};
QString toName(LineKind k);

/// Changed characters inside one line: `start` and `length` in UTF-16 units (QString indices).
struct Range {
    int start = 0;
    int length = 0;
    bool operator==(const Range &) const = default;
};

/// One row of the aligned diff. Line numbers are 1-based; 0 where the side has no line.
struct LinePair {
    int leftLine = 0;
    int rightLine = 0;
    LineKind kind = LineKind::Equal;
    QList<Range> leftRanges; ///< Change only: what differs in the left line
    QList<Range> rightRanges; ///< Change only: what differs in the right line
    bool operator==(const LinePair &) const = default;
};

/// A maximal run of non-equal rows (no context lines): what "next change" moves between.
struct Hunk {
    int firstPair = 0; ///< index into DiffResult::pairs
    int pairCount = 0;
    int leftStart = 0; ///< first left line touched (1-based), or the line after which it inserts
    int leftCount = 0;
    int rightStart = 0;
    int rightCount = 0;
    bool operator==(const Hunk &) const = default;
};

enum class Granularity { Character, Word };

struct Options {
    /// CRLF / CR / LF compare equal (default); off: a line that differs only in its ending changes.
    bool ignoreLineEndings = true;
    /// Trailing spaces and tabs are ignored when comparing lines (they are still shown).
    bool ignoreTrailingWhitespace = false;
    Granularity intraLine = Granularity::Word;
    /// Lines longer than this get no intra-line ranges (the whole line is marked); keeps huge
    /// one-line prompts from costing seconds.
    int maxIntraLineLength = 4000;
};

/// The whole diff: every row of both texts aligned, the hunks, and counts.
struct DiffResult {
    QStringList leftLines; ///< without line terminators
    QStringList rightLines;
    bool leftEndsWithNewline = false;
    bool rightEndsWithNewline = false;
    QList<LinePair> pairs;
    QList<Hunk> hunks;
    int inserted = 0; ///< Insert rows
    int deleted = 0; ///< Delete rows
    int changed = 0; ///< Change rows

    bool identical() const { return hunks.isEmpty(); }
};

/// Splits at "\r\n", "\n" and "\r". A final terminator does not start an extra empty line;
/// `endsWithNewline` says whether there was one. An empty text has no lines.
QStringList splitLines(const QString &text, bool *endsWithNewline = nullptr);

/// Diffs two texts line by line (dtl: Wu, Manber and Myers' O(NP) algorithm), then pairs the
/// deleted and inserted lines of each hunk in order as changes and diffs each pair's characters
/// or words. A missing final newline counts as a change of the last line (as in git).
DiffResult diffTexts(const QString &left, const QString &right, const Options &options = {});

/// The changed ranges of two single lines (Character or Word granularity).
void diffLine(const QString &left, const QString &right, Granularity g, QList<Range> *leftRanges,
              QList<Range> *rightRanges);

/// Unified diff text ("--- a", "+++ b", "@@ -l,n +r,m @@", " ", "-", "+" lines) with `context`
/// lines around hunks; "\ No newline at end of file" where a side lacks its final newline.
/// Empty for identical texts.
QString unifiedText(const DiffResult &d, const QString &leftTitle = QStringLiteral("a"),
                    const QString &rightTitle = QStringLiteral("b"), int context = 3);

} // namespace kwb::diff
