// SPDX-License-Identifier: MIT
#include "extraction.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QStringList>

namespace kwb::prompts {

namespace {

struct Block {
    QString lang;
    QString body;
    bool closed = true;
};

QList<Block> fencedBlocks(const QString &text)
{
    static const QRegularExpression open(QStringLiteral(R"(^\s{0,3}(`{3,}|~{3,})\s*([\w+#.-]*)[^`]*$)"));
    QList<Block> blocks;
    const QStringList lines = text.split(QLatin1Char('\n'));
    bool inBlock = false;
    QString fence;
    Block current;
    QStringList body;
    for (QString line : lines) {
        if (line.endsWith(QLatin1Char('\r')))
            line.chop(1);
        if (!inBlock) {
            const auto m = open.match(line);
            if (m.hasMatch()) {
                inBlock = true;
                fence = m.captured(1);
                current = Block{m.captured(2).toLower(), {}, true};
                body.clear();
            }
            continue;
        }
        const QString t = line.trimmed();
        if (t.startsWith(fence) && t.size() >= fence.size()
            && std::all_of(t.begin(), t.end(), [&](QChar c) { return c == fence.at(0); })) {
            current.body = body.join(QLatin1Char('\n'));
            blocks.append(current);
            inBlock = false;
            continue;
        }
        body << line;
    }
    if (inBlock) { // an answer cut off inside its code block: keep what came
        current.body = body.join(QLatin1Char('\n'));
        current.closed = false;
        blocks.append(current);
    }
    return blocks;
}

bool definesModelNew(const QString &code)
{
    static const QRegularExpression re(QStringLiteral(R"(^\s*class\s+ModelNew\b)"),
                                       QRegularExpression::MultilineOption);
    return re.match(code).hasMatch();
}

bool isPythonLang(const QString &lang)
{
    static const QStringList langs{QString(), QStringLiteral("python"), QStringLiteral("py"),
                                   QStringLiteral("python3"), QStringLiteral("triton")};
    return langs.contains(lang);
}

/// Python taken out of an answer without fences: from the first line that starts code to the
/// last line that still reads as code.
QString unfencedPython(const QString &text)
{
    static const QRegularExpression start(
        QStringLiteral(R"(^(import\s+\w|from\s+[\w.]+\s+import\s|class\s+\w|def\s+\w|@\w|#!))"));
    static const QRegularExpression codeLine(QStringLiteral(
        R"(^(\s+\S|[\w.]+\s*(=|\(|\[|\+=|-=)|import\s|from\s|class\s|def\s|@|#|return\b|if\s|elif\s|else:|for\s|while\s|try:|except|finally:|with\s|[)\]}]))"));
    QStringList lines = text.split(QLatin1Char('\n'));
    for (auto &l : lines)
        if (l.endsWith(QLatin1Char('\r')))
            l.chop(1);
    qsizetype first = 0;
    while (first < lines.size() && !start.match(lines.at(first)).hasMatch())
        ++first;
    if (first == lines.size())
        return {};
    qsizetype last = lines.size() - 1;
    while (last > first && (lines.at(last).trimmed().isEmpty() || !codeLine.match(lines.at(last)).hasMatch()))
        --last;
    return lines.mid(first, last - first + 1).join(QLatin1Char('\n'));
}

// ---- lenient JSON ----

/// Rewrites almost-JSON (as models write it) into JSON: comments dropped, single-quoted strings
/// and bare keys double-quoted, Python literals mapped, trailing commas removed, raw control
/// characters inside strings escaped.
QString sanitizeJson(const QString &in)
{
    QString out;
    out.reserve(in.size());
    const qsizetype n = in.size();
    auto dropTrailingComma = [&out] {
        qsizetype i = out.size() - 1;
        while (i >= 0 && out.at(i).isSpace())
            --i;
        if (i >= 0 && out.at(i) == QLatin1Char(','))
            out.remove(i, 1);
    };
    for (qsizetype i = 0; i < n; ++i) {
        const QChar c = in.at(i);
        if (c == QLatin1Char('"') || c == QLatin1Char('\'')) {
            const QChar quote = c;
            out += QLatin1Char('"');
            for (++i; i < n && in.at(i) != quote; ++i) {
                const QChar s = in.at(i);
                if (s == QLatin1Char('\\') && i + 1 < n) {
                    const QChar e = in.at(++i);
                    if (e == QLatin1Char('\'')) // \' is not a JSON escape
                        out += e;
                    else
                        out += QLatin1Char('\\') + QString(e);
                } else if (s == QLatin1Char('"')) { // a double quote inside a single-quoted string
                    out += QStringLiteral("\\\"");
                } else if (s == QLatin1Char('\n')) {
                    out += QStringLiteral("\\n");
                } else if (s == QLatin1Char('\r')) {
                } else if (s == QLatin1Char('\t')) {
                    out += QStringLiteral("\\t");
                } else {
                    out += s;
                }
            }
            out += QLatin1Char('"');
            continue;
        }
        if (c == QLatin1Char('/') && i + 1 < n && in.at(i + 1) == QLatin1Char('/')) {
            while (i < n && in.at(i) != QLatin1Char('\n'))
                ++i;
            out += QLatin1Char('\n');
            continue;
        }
        if (c == QLatin1Char('#')) {
            while (i < n && in.at(i) != QLatin1Char('\n'))
                ++i;
            out += QLatin1Char('\n');
            continue;
        }
        if (c == QLatin1Char('/') && i + 1 < n && in.at(i + 1) == QLatin1Char('*')) {
            const qsizetype end = in.indexOf(QStringLiteral("*/"), i + 2);
            i = end < 0 ? n : end + 1;
            continue;
        }
        if (c == QLatin1Char('}') || c == QLatin1Char(']')) {
            dropTrailingComma();
            out += c;
            continue;
        }
        if (c.isLetter() || c == QLatin1Char('_')) {
            qsizetype j = i;
            while (j < n && (in.at(j).isLetterOrNumber() || in.at(j) == QLatin1Char('_')))
                ++j;
            const QString word = in.mid(i, j - i);
            qsizetype k = j;
            while (k < n && in.at(k).isSpace())
                ++k;
            if (k < n && in.at(k) == QLatin1Char(':'))
                out += QLatin1Char('"') + word + QLatin1Char('"'); // a bare key
            else if (word == QLatin1String("True"))
                out += QStringLiteral("true");
            else if (word == QLatin1String("False"))
                out += QStringLiteral("false");
            else if (word == QLatin1String("None"))
                out += QStringLiteral("null");
            else
                out += word;
            i = j - 1;
            continue;
        }
        out += c;
    }
    return out;
}

/// The text of the first balanced {...} starting at or after `from`; empty if none.
QString balancedObject(const QString &text, qsizetype from, qsizetype *next)
{
    const qsizetype start = text.indexOf(QLatin1Char('{'), from);
    *next = text.size();
    if (start < 0)
        return {};
    *next = start + 1;
    int depth = 0;
    QChar quote;
    for (qsizetype i = start; i < text.size(); ++i) {
        const QChar c = text.at(i);
        if (!quote.isNull()) {
            if (c == QLatin1Char('\\'))
                ++i;
            else if (c == quote)
                quote = QChar();
            continue;
        }
        if (c == QLatin1Char('"') || c == QLatin1Char('\''))
            quote = c;
        else if (c == QLatin1Char('{'))
            ++depth;
        else if (c == QLatin1Char('}') && --depth == 0)
            return text.mid(start, i - start + 1);
    }
    return text.mid(start); // unbalanced: let the parser say what is wrong
}

QString normalizedKey(QString k)
{
    k = k.trimmed().toLower();
    k.replace(QLatin1Char(' '), QLatin1Char('_')).replace(QLatin1Char('-'), QLatin1Char('_'));
    k.replace(QLatin1String("optimization"), QLatin1String("optimisation"));
    return k;
}

QJsonValue field(const QJsonObject &o, std::initializer_list<const char *> names)
{
    for (auto it = o.begin(); it != o.end(); ++it) {
        const QString k = normalizedKey(it.key());
        for (const char *name : names)
            if (k == QLatin1String(name))
                return it.value();
    }
    return QJsonValue::Undefined;
}

QString text(const QJsonValue &v)
{
    if (v.isString())
        return v.toString().trimmed();
    if (v.isDouble())
        return QString::number(v.toDouble());
    if (v.isBool())
        return v.toBool() ? QStringLiteral("yes") : QStringLiteral("no");
    if (v.isArray()) {
        QStringList items;
        for (const auto &x : v.toArray())
            items << text(x);
        return items.join(QLatin1Char('\n'));
    }
    if (v.isObject())
        return QString::fromUtf8(QJsonDocument(v.toObject()).toJson(QJsonDocument::Compact));
    return {};
}

std::optional<bool> yesNo(const QJsonValue &v)
{
    if (v.isBool())
        return v.toBool();
    if (v.isDouble())
        return v.toDouble() != 0;
    if (v.isString()) {
        const QString s = v.toString().trimmed().toLower();
        if (s.startsWith(QLatin1String("yes")) || s == QLatin1String("true") || s == QLatin1String("y"))
            return true;
        if (s.startsWith(QLatin1String("no")) || s == QLatin1String("false") || s == QLatin1String("n"))
            return false;
    }
    return std::nullopt;
}

QString normalizedComplexity(const QString &s)
{
    const QString l = s.toLower();
    for (const char *level : {"persistent", "medium", "high", "low"})
        if (l.contains(QLatin1String(level)))
            return QString::fromLatin1(level);
    return s;
}

QString normalizedOutputRequirement(const QString &s)
{
    const QString l = s.toLower();
    if (l.contains(QLatin1String("final")) || l.contains(QLatin1String("hidden")) || l.contains(QLatin1String("last"))
        || l.contains(QLatin1String("h_n")))
        return QStringLiteral("final_hidden_only");
    if (l.contains(QLatin1String("full")) || l.contains(QLatin1String("sequence")))
        return QStringLiteral("full_sequence");
    return s;
}

} // namespace

CodeExtraction extractCode(const QString &response)
{
    CodeExtraction r;
    if (response.trimmed().isEmpty()) {
        r.error = QStringLiteral("the answer is empty");
        return r;
    }
    const QList<Block> blocks = fencedBlocks(response);
    r.blocks = static_cast<int>(blocks.size());
    if (blocks.isEmpty()) {
        r.fenced = false;
        r.code = unfencedPython(response);
        if (r.code.trimmed().isEmpty()) {
            r.code.clear();
            r.error = QStringLiteral("no code in the answer: no fenced code block and no Python found");
            return r;
        }
        r.definesModelNew = definesModelNew(r.code);
        return r;
    }
    QList<const Block *> candidates;
    QStringList otherLangs;
    for (const auto &b : blocks) {
        if ((isPythonLang(b.lang) || definesModelNew(b.body)) && !b.body.trimmed().isEmpty())
            candidates.append(&b);
        else
            otherLangs << (b.lang.isEmpty() ? QStringLiteral("plain") : b.lang);
    }
    if (candidates.isEmpty()) {
        r.error = QStringLiteral("no Python code block in the answer (found %1 block(s): %2)")
                      .arg(blocks.size())
                      .arg(otherLangs.join(QStringLiteral(", ")));
        return r;
    }
    const Block *best = nullptr;
    for (const Block *b : candidates) {
        const bool mn = definesModelNew(b->body);
        const bool bestMn = best && definesModelNew(best->body);
        if (!best || (mn && !bestMn) || (mn == bestMn && b->body.size() > best->body.size()))
            best = b;
    }
    r.code = best->body;
    r.definesModelNew = definesModelNew(r.code);
    return r;
}

std::optional<QJsonObject> parseLenientJsonObject(const QString &text, QString *error)
{
    for (const QString &attempt : {text, sanitizeJson(text)}) {
        QJsonParseError pe;
        const QJsonDocument doc = QJsonDocument::fromJson(attempt.toUtf8(), &pe);
        if (pe.error == QJsonParseError::NoError && doc.isObject())
            return doc.object();
        if (error)
            *error = QStringLiteral("%1 at offset %2").arg(pe.errorString()).arg(pe.offset);
    }
    return std::nullopt;
}

std::optional<Analysis> extractAnalysis(const QString &response, QString *error)
{
    if (response.trimmed().isEmpty()) {
        if (error)
            *error = QStringLiteral("the analysis answer is empty");
        return std::nullopt;
    }
    // Fenced blocks first (json or untagged), then every balanced {...} in the text.
    QStringList candidates;
    for (const auto &b : fencedBlocks(response))
        if (b.body.contains(QLatin1Char('{')))
            candidates << b.body.trimmed();
    for (qsizetype from = 0; from < response.size();) {
        qsizetype next = 0;
        const QString obj = balancedObject(response, from, &next);
        if (obj.isEmpty())
            break;
        candidates << obj;
        from = next;
    }
    QString lastError = QStringLiteral("no JSON object in the analysis answer");
    for (QString c : candidates) {
        if (!c.startsWith(QLatin1Char('{'))) {
            qsizetype next = 0;
            c = balancedObject(c, 0, &next);
        }
        QString parseError;
        const auto obj = parseLenientJsonObject(c, &parseError);
        if (!obj) {
            lastError = QStringLiteral("the analysis JSON does not parse (%1)").arg(parseError);
            continue;
        }
        const QJsonValue worth = field(*obj, {"worth_optimizing", "worth_optimising", "worth_it"});
        if (worth.isUndefined()) {
            lastError = QStringLiteral("the analysis JSON has no \"worth_optimizing\" field");
            continue;
        }
        const auto yes = yesNo(worth);
        if (!yes) {
            lastError = QStringLiteral("\"worth_optimizing\" is neither yes nor no: %1").arg(text(worth));
            continue;
        }
        Analysis a;
        a.raw = *obj;
        a.worthOptimizing = *yes;
        a.reason = text(field(*obj, {"reason", "reasoning", "rationale"}));
        a.bottleneck = text(field(*obj, {"bottleneck", "bottlenecks"}));
        a.method = text(field(*obj, {"optimisation_method", "method", "optimisation"}));
        a.plan = text(field(*obj, {"modification_plan", "plan"}));
        a.expectedSpeedup = text(field(*obj, {"expected_speedup", "speedup"}));
        a.implementationComplexity = normalizedComplexity(text(field(*obj, {"implementation_complexity", "complexity"})));
        a.kernelType = text(field(*obj, {"kernel_type"}));
        a.outputRequirement = normalizedOutputRequirement(text(field(*obj, {"output_requirement"})));
        return a;
    }
    if (error)
        *error = lastError;
    return std::nullopt;
}

QString formatAnalysis(const Analysis &a)
{
    QStringList lines;
    auto add = [&lines](const char *label, const QString &value) {
        if (!value.isEmpty())
            lines << QStringLiteral("- %1: %2").arg(QLatin1String(label), value);
    };
    add("Worth optimizing", a.worthOptimizing ? QStringLiteral("yes") : QStringLiteral("no"));
    add("Reason", a.reason);
    add("Bottleneck", a.bottleneck);
    add("Optimisation method", a.method);
    add("Modification plan", a.plan);
    add("Expected speedup", a.expectedSpeedup);
    add("Implementation complexity", a.implementationComplexity);
    add("Kernel type", a.kernelType);
    add("Output requirement", a.outputRequirement);
    return lines.join(QLatin1Char('\n'));
}

} // namespace kwb::prompts
