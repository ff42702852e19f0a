// SPDX-License-Identifier: MIT
#include "diff/textdiff.h"

// dtl (libdtl-dev) is a maintained, header-only implementation of Wu, Manber and Myers' O(NP)
// sequence comparison: O((M+N)·P) with P the number of deletions, so two similar 1,000-line
// kernels diff in well under a millisecond, and it yields a shortest edit script (the minimal
// diff), unlike a naive line compare. Packaged in Debian, so no vendored algorithm to maintain.
#include <dtl/dtl.hpp>

#include <QHash>

#include <QPair>

#include <algorithm>
#include <limits>
#include <vector>

namespace kwb::diff {

QString toName(LineKind k)
{
    switch (k) {
    case LineKind::Equal: return QStringLiteral("equal");
    case LineKind::Insert: return QStringLiteral("insert");
    case LineKind::Delete: return QStringLiteral("delete");
    case LineKind::Change: return QStringLiteral("change");
    }
    return {};
}

QStringList splitLines(const QString &text, bool *endsWithNewline)
{
    QStringList lines;
    const qsizetype n = text.size();
    qsizetype start = 0;
    bool terminated = false;
    for (qsizetype i = 0; i < n; ++i) {
        const QChar c = text.at(i);
        if (c == u'\n' || c == u'\r') {
            lines.append(text.mid(start, i - start));
            if (c == u'\r' && i + 1 < n && text.at(i + 1) == u'\n')
                ++i;
            start = i + 1;
            terminated = true;
        } else {
            terminated = false;
        }
    }
    if (start < n)
        lines.append(text.mid(start));
    if (endsWithNewline)
        *endsWithNewline = n > 0 && terminated;
    return lines;
}

namespace {

/// Runs dtl over two sequences of integers (interned lines or tokens) and returns the edit script
/// as a list of SES_COMMON / SES_ADD / SES_DELETE marks in order.
std::vector<int> editScript(const std::vector<int> &a, const std::vector<int> &b)
{
    std::vector<int> out;
    if (a.empty() || b.empty()) {
        out.insert(out.end(), a.size(), dtl::SES_DELETE);
        out.insert(out.end(), b.size(), dtl::SES_ADD);
        return out;
    }
    // Not onHuge(): it reserves 48 MB of path coordinates up front, which costs more than the
    // diff itself for kernel-sized inputs.
    dtl::Diff<int, std::vector<int>> d(a, b);
    d.compose();
    const auto seq = d.getSes().getSequence();
    out.reserve(seq.size());
    for (const auto &e : seq)
        out.push_back(static_cast<int>(e.second.type));
    return out;
}

/// The text a line is compared by: its ending is folded in unless line endings are ignored, the
/// missing final newline is made visible so that it counts as a change (as in git).
QString lineKey(const QString &raw, bool last, bool lastTerminated, const Options &o)
{
    QString key = raw;
    if (o.ignoreTrailingWhitespace) {
        qsizetype end = key.size();
        while (end > 0 && (key.at(end - 1) == u' ' || key.at(end - 1) == u'\t'))
            --end;
        key.truncate(end);
    }
    if (last && !lastTerminated)
        key += QChar(0xE000); // a private-use mark: "no newline at end of file"
    return key;
}

/// Lines with their original endings kept apart, so `ignoreLineEndings = false` can compare them.
QStringList splitKeepingEndings(const QString &text)
{
    QStringList lines;
    qsizetype start = 0;
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text.at(i);
        if (c == u'\n' || c == u'\r') {
            if (c == u'\r' && i + 1 < text.size() && text.at(i + 1) == u'\n')
                ++i;
            lines.append(text.mid(start, i + 1 - start));
            start = i + 1;
        }
    }
    if (start < text.size())
        lines.append(text.mid(start));
    return lines;
}

/// The id of `key`, a new one for a key not seen yet (QHash::emplace would overwrite).
template<typename Key>
int internId(QHash<Key, int> &ids, const Key &key)
{
    auto it = ids.constFind(key);
    if (it == ids.constEnd())
        it = ids.insert(key, static_cast<int>(ids.size()));
    return it.value();
}

enum class TokenClass { Word, Space, Other };
TokenClass classOf(QChar c)
{
    if (c.isLetterOrNumber() || c == u'_')
        return TokenClass::Word;
    if (c == u' ' || c == u'\t')
        return TokenClass::Space;
    return TokenClass::Other;
}

/// Token boundaries of a line: identifiers/numbers and blank runs are one token each, every other
/// character is its own token. Returns the start offsets plus the end offset.
std::vector<int> tokenBounds(const QString &s, Granularity g)
{
    std::vector<int> b;
    b.reserve(static_cast<size_t>(s.size()) + 1);
    for (int i = 0; i < s.size(); ++i) {
        if (g == Granularity::Character || i == 0) {
            b.push_back(i);
            continue;
        }
        const TokenClass c = classOf(s.at(i));
        if (c == TokenClass::Other || c != classOf(s.at(i - 1)))
            b.push_back(i);
    }
    b.push_back(static_cast<int>(s.size()));
    return b;
}

void appendRange(QList<Range> *ranges, int start, int length)
{
    if (length <= 0)
        return;
    if (!ranges->isEmpty() && ranges->last().start + ranges->last().length == start)
        ranges->last().length += length;
    else
        ranges->append({start, length});
}

/// How alike two lines are, 0..1: the Dice coefficient of their token multisets. Cheap (no
/// alignment), good enough to decide which deleted line became which inserted one.
double similarity(const QString &a, const QString &b)
{
    if (a.trimmed() == b.trimmed())
        return 1.0;
    QHash<QStringView, int> counts;
    int na = 0, nb = 0, common = 0;
    auto tokens = [](const QString &s, auto &&fn) {
        const std::vector<int> bounds = tokenBounds(s, Granularity::Word);
        for (size_t i = 0; i + 1 < bounds.size(); ++i) {
            const QStringView t = QStringView(s).mid(bounds[i], bounds[i + 1] - bounds[i]);
            if (classOf(t.front()) != TokenClass::Space)
                fn(t);
        }
    };
    tokens(a, [&](QStringView t) {
        ++counts[t];
        ++na;
    });
    tokens(b, [&](QStringView t) {
        ++nb;
        auto it = counts.find(t);
        if (it != counts.end() && it.value() > 0) {
            --it.value();
            ++common;
        }
    });
    return na + nb == 0 ? 0.0 : 2.0 * common / (na + nb);
}

/// Pairs the deleted lines of a hunk with its inserted lines: a monotone matching that maximises
/// the summed similarity (pairs below 0.3 are not matched), by dynamic programming. Large hunks
/// (where O(n·m) similarity would cost) pair in order instead.
QList<QPair<int, int>> matchLines(const QStringList &left, const QList<int> &dels, const QStringList &right,
                                  const QList<int> &adds)
{
    QList<QPair<int, int>> out;
    const qsizetype n = dels.size(), m = adds.size();
    if (n == 0 || m == 0)
        return out;
    constexpr double kMinSimilarity = 0.3;
    if (n * m > 200 * 200) {
        for (qsizetype i = 0; i < std::min(n, m); ++i)
            out.append({dels[i], adds[i]});
        return out;
    }
    std::vector<double> sim(static_cast<size_t>(n * m));
    for (qsizetype i = 0; i < n; ++i)
        for (qsizetype j = 0; j < m; ++j)
            sim[static_cast<size_t>(i * m + j)] = similarity(left.at(dels[i] - 1), right.at(adds[j] - 1));
    // best[i][j]: the best total for the first i deletions and j insertions.
    std::vector<double> best(static_cast<size_t>((n + 1) * (m + 1)), 0.0);
    auto at = [m](qsizetype i, qsizetype j) { return static_cast<size_t>(i * (m + 1) + j); };
    for (qsizetype i = 1; i <= n; ++i) {
        for (qsizetype j = 1; j <= m; ++j) {
            double v = std::max(best[at(i - 1, j)], best[at(i, j - 1)]);
            const double s = sim[static_cast<size_t>((i - 1) * m + (j - 1))];
            if (s >= kMinSimilarity)
                v = std::max(v, best[at(i - 1, j - 1)] + s);
            best[at(i, j)] = v;
        }
    }
    for (qsizetype i = n, j = m; i > 0 && j > 0;) {
        const double s = sim[static_cast<size_t>((i - 1) * m + (j - 1))];
        if (s >= kMinSimilarity && best[at(i, j)] == best[at(i - 1, j - 1)] + s) {
            out.prepend({dels[i - 1], adds[j - 1]});
            --i;
            --j;
        } else if (best[at(i, j)] == best[at(i - 1, j)]) {
            --i;
        } else {
            --j;
        }
    }
    return out;
}

} // namespace

void diffLine(const QString &left, const QString &right, Granularity g, QList<Range> *leftRanges,
              QList<Range> *rightRanges)
{
    leftRanges->clear();
    rightRanges->clear();
    const std::vector<int> lb = tokenBounds(left, g);
    const std::vector<int> rb = tokenBounds(right, g);
    // Interning tokens to ints keeps dtl's comparisons cheap and its template simple.
    QHash<QStringView, int> ids;
    auto intern = [&ids](const QString &s, const std::vector<int> &bounds) {
        std::vector<int> v;
        v.reserve(bounds.size());
        for (size_t i = 0; i + 1 < bounds.size(); ++i) {
            const QStringView t = QStringView(s).mid(bounds[i], bounds[i + 1] - bounds[i]);
            v.push_back(internId(ids, t));
        }
        return v;
    };
    const std::vector<int> a = intern(left, lb);
    const std::vector<int> b = intern(right, rb);
    size_t ia = 0, ib = 0;
    for (int mark : editScript(a, b)) {
        if (mark == dtl::SES_COMMON) {
            ++ia;
            ++ib;
        } else if (mark == dtl::SES_DELETE) {
            appendRange(leftRanges, lb[ia], lb[ia + 1] - lb[ia]);
            ++ia;
        } else {
            appendRange(rightRanges, rb[ib], rb[ib + 1] - rb[ib]);
            ++ib;
        }
    }
}

DiffResult diffTexts(const QString &left, const QString &right, const Options &options)
{
    DiffResult r;
    r.leftLines = splitLines(left, &r.leftEndsWithNewline);
    r.rightLines = splitLines(right, &r.rightEndsWithNewline);
    const QStringList leftRaw = options.ignoreLineEndings ? r.leftLines : splitKeepingEndings(left);
    const QStringList rightRaw = options.ignoreLineEndings ? r.rightLines : splitKeepingEndings(right);

    // Lines are interned to integers: dtl then compares ints, and equal lines hash once.
    QHash<QString, int> ids;
    auto intern = [&](const QStringList &lines, bool terminated) {
        std::vector<int> v;
        v.reserve(static_cast<size_t>(lines.size()));
        for (qsizetype i = 0; i < lines.size(); ++i) {
            const QString key = lineKey(lines.at(i), i == lines.size() - 1, terminated, options);
            v.push_back(internId(ids, key));
        }
        return v;
    };
    const std::vector<int> a = intern(leftRaw, r.leftEndsWithNewline);
    const std::vector<int> b = intern(rightRaw, r.rightEndsWithNewline);
    const std::vector<int> script = editScript(a, b);

    int ln = 0, rn = 0; // lines consumed so far on each side
    size_t k = 0;
    while (k < script.size()) {
        if (script[k] == dtl::SES_COMMON) {
            r.pairs.append({++ln, ++rn, LineKind::Equal, {}, {}});
            ++k;
            continue;
        }
        // A hunk: the run of deletions and additions up to the next common line.
        QList<int> dels, adds;
        for (; k < script.size() && script[k] != dtl::SES_COMMON; ++k) {
            if (script[k] == dtl::SES_DELETE)
                dels.append(++ln);
            else
                adds.append(++rn);
        }
        Hunk h;
        h.firstPair = static_cast<int>(r.pairs.size());
        h.leftStart = dels.isEmpty() ? ln : dels.first();
        h.leftCount = static_cast<int>(dels.size());
        h.rightStart = adds.isEmpty() ? rn : adds.first();
        h.rightCount = static_cast<int>(adds.size());
        // Deleted and inserted lines are matched by similarity (in order), the rest stay pure
        // deletions and insertions: an inserted line between two edited ones does not shift
        // every pairing after it.
        const QList<QPair<int, int>> matches = matchLines(r.leftLines, dels, r.rightLines, adds);
        qsizetype di = 0, ai = 0;
        auto emitChange = [&](int leftLine, int rightLine) {
            LinePair p{leftLine, rightLine, LineKind::Change, {}, {}};
            const QString &l = r.leftLines.at(leftLine - 1);
            const QString &rr = r.rightLines.at(rightLine - 1);
            if (l.size() <= options.maxIntraLineLength && rr.size() <= options.maxIntraLineLength) {
                diffLine(l, rr, options.intraLine, &p.leftRanges, &p.rightRanges);
            } else {
                appendRange(&p.leftRanges, 0, static_cast<int>(l.size()));
                appendRange(&p.rightRanges, 0, static_cast<int>(rr.size()));
            }
            r.pairs.append(p);
            ++r.changed;
        };
        auto flushUntil = [&](int leftLine, int rightLine) {
            for (; di < dels.size() && dels[di] < leftLine; ++di) {
                r.pairs.append({dels[di], 0, LineKind::Delete, {}, {}});
                ++r.deleted;
            }
            for (; ai < adds.size() && adds[ai] < rightLine; ++ai) {
                r.pairs.append({0, adds[ai], LineKind::Insert, {}, {}});
                ++r.inserted;
            }
        };
        for (const auto &[leftLine, rightLine] : matches) {
            flushUntil(leftLine, rightLine);
            emitChange(leftLine, rightLine);
            ++di;
            ++ai;
        }
        flushUntil(std::numeric_limits<int>::max(), std::numeric_limits<int>::max());
        h.pairCount = static_cast<int>(r.pairs.size()) - h.firstPair;
        r.hunks.append(h);
    }
    return r;
}

QString unifiedText(const DiffResult &d, const QString &leftTitle, const QString &rightTitle, int context)
{
    if (d.identical())
        return {};
    QString out;
    out += QStringLiteral("--- %1\n+++ %2\n").arg(leftTitle, rightTitle);
    const QString noEol = QStringLiteral("\\ No newline at end of file\n");
    const int nl = static_cast<int>(d.leftLines.size());
    const int nr = static_cast<int>(d.rightLines.size());

    // Groups of hunks whose context would touch are printed as one "@@" block, as diff -u does.
    qsizetype h = 0;
    while (h < d.hunks.size()) {
        qsizetype last = h;
        while (last + 1 < d.hunks.size()) {
            const Hunk &cur = d.hunks.at(last);
            const Hunk &next = d.hunks.at(last + 1);
            if (next.firstPair - (cur.firstPair + cur.pairCount) > 2 * context)
                break;
            ++last;
        }
        const int from = std::max(0, d.hunks.at(h).firstPair - context);
        const int to = std::min(static_cast<int>(d.pairs.size()),
                                d.hunks.at(last).firstPair + d.hunks.at(last).pairCount + context);
        QString body;
        int lStart = 0, lCount = 0, rStart = 0, rCount = 0;
        auto emitLine = [&](QChar mark, const QString &text, bool isLastOfSide, bool sideTerminated) {
            body += mark;
            body += text;
            body += u'\n';
            if (isLastOfSide && !sideTerminated)
                body += noEol;
        };
        QStringList pendingAdds; // "+" lines follow the "-" lines of a change run
        QList<bool> pendingAddsLast;
        auto flushAdds = [&] {
            for (qsizetype i = 0; i < pendingAdds.size(); ++i)
                emitLine(u'+', pendingAdds.at(i), pendingAddsLast.at(i), d.rightEndsWithNewline);
            pendingAdds.clear();
            pendingAddsLast.clear();
        };
        for (int i = from; i < to; ++i) {
            const LinePair &p = d.pairs.at(i);
            if (p.leftLine > 0) {
                if (lStart == 0)
                    lStart = p.leftLine;
                ++lCount;
            }
            if (p.rightLine > 0) {
                if (rStart == 0)
                    rStart = p.rightLine;
                ++rCount;
            }
            if (p.kind == LineKind::Equal) {
                flushAdds();
                emitLine(u' ', d.leftLines.at(p.leftLine - 1), p.leftLine == nl, d.leftEndsWithNewline);
                continue;
            }
            if (p.leftLine > 0)
                emitLine(u'-', d.leftLines.at(p.leftLine - 1), p.leftLine == nl, d.leftEndsWithNewline);
            if (p.rightLine > 0) {
                pendingAdds.append(d.rightLines.at(p.rightLine - 1));
                pendingAddsLast.append(p.rightLine == nr);
            }
        }
        flushAdds();
        // diff -u: an empty side is written as "l,0" with l the line before the hunk.
        if (lCount == 0)
            lStart = d.hunks.at(h).leftStart;
        if (rCount == 0)
            rStart = d.hunks.at(h).rightStart;
        out += QStringLiteral("@@ -%1,%2 +%3,%4 @@\n").arg(lStart).arg(lCount).arg(rStart).arg(rCount);
        out += body;
        h = last + 1;
    }
    return out;
}

} // namespace kwb::diff
