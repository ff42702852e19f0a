// SPDX-License-Identifier: MIT
#include "tasks/taskindex.h"

#include "env/locations.h"

#include <QCryptographicHash>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>

#include <algorithm>

namespace kwb {

namespace {

/// The problem number KernelBench puts in front of a file name ("39_GRU" → 39); large when none.
int problemNumber(const QString &name)
{
    static const QRegularExpression re(QStringLiteral("^(\\d+)_"));
    const auto m = re.match(name);
    return m.hasMatch() ? m.captured(1).toInt() : 1 << 30;
}

/// Source without comments, so a word in a comment does not decide the family.
QString withoutComments(const QString &source)
{
    static const QRegularExpression comment(QStringLiteral("#[^\\n]*"));
    QString s = source;
    s.remove(comment);
    return s;
}

} // namespace

TaskIndex::TaskIndex(bool withShipped)
{
    if (withShipped)
        addDirectory(env::tasksDir());
}

void TaskIndex::addDirectory(const QString &dir)
{
    QDirIterator it(dir, {QStringLiteral("*.py")}, QDir::Files | QDir::Readable, QDirIterator::Subdirectories);
    QStringList files;
    while (it.hasNext())
        files << it.next();
    files.sort();
    for (const QString &f : files) {
        const QFileInfo fi(f);
        // Package markers and byte-code caches are never tasks; do not report them either.
        if (fi.fileName() == QLatin1String("__init__.py") || f.contains(QLatin1String("/__pycache__/")))
            continue;
        QString error;
        if (!addFile(f, &error))
            m_problems << error;
    }
}

bool TaskIndex::addFile(const QString &path, QString *error)
{
    auto t = fromFile(path, error);
    if (!t)
        return false;
    for (const Task &existing : std::as_const(m_tasks))
        if (existing.path == t->path)
            return true; // the same file reached twice (overlapping folders)
    m_tasks << *t;
    return true;
}

QList<Task> TaskIndex::tasks() const
{
    QList<Task> out = m_tasks;
    std::stable_sort(out.begin(), out.end(), [](const Task &a, const Task &b) {
        // Unknown level (0) sorts last: user files after the library.
        const int la = a.level == 0 ? 1000 : a.level, lb = b.level == 0 ? 1000 : b.level;
        if (la != lb)
            return la < lb;
        const int na = problemNumber(a.name), nb = problemNumber(b.name);
        if (na != nb)
            return na < nb;
        return a.name < b.name;
    });
    return out;
}

std::optional<Task> TaskIndex::find(const QString &nameOrPath) const
{
    if (nameOrPath.isEmpty())
        return std::nullopt;
    const QList<Task> all = tasks();
    const QFileInfo fi(nameOrPath);
    if (fi.exists()) {
        const QString abs = fi.canonicalFilePath();
        for (const Task &t : all)
            if (t.path == abs)
                return t;
        return fromFile(nameOrPath); // a task file outside the index
    }
    QString stem = nameOrPath;
    if (stem.endsWith(QLatin1String(".py")))
        stem.chop(3);
    for (const Task &t : all)
        if (t.name == stem)
            return t;
    std::optional<Task> unique;
    for (const Task &t : all) {
        if (t.name.compare(stem, Qt::CaseInsensitive) == 0) {
            if (unique)
                return std::nullopt; // ambiguous
            unique = t;
        }
    }
    return unique;
}

std::optional<Task> TaskIndex::resolve(const QString &fileOrName, QString *error)
{
    if (QFileInfo::exists(fileOrName))
        return fromFile(QFileInfo(fileOrName).absoluteFilePath(), error);
    if (auto task = TaskIndex(true).find(fileOrName))
        return task;
    if (error)
        *error = QStringLiteral("no task file or task named '%1'").arg(fileOrName);
    return std::nullopt;
}

std::optional<Task> TaskIndex::fromFile(const QString &path, QString *error)
{
    auto fail = [&](const QString &why) -> std::optional<Task> {
        if (error)
            *error = path + QStringLiteral(": ") + why;
        return std::nullopt;
    };
    QFile f(path);
    if (!QFileInfo(path).isFile())
        return fail(QStringLiteral("no such file"));
    if (!f.open(QIODevice::ReadOnly))
        return fail(QStringLiteral("cannot read: ") + f.errorString());
    const QByteArray bytes = f.readAll();
    const QString source = QString::fromUtf8(bytes);
    const QString code = withoutComments(source);

    static const QRegularExpression model(QStringLiteral("^class\\s+Model\\s*[(:]"),
                                          QRegularExpression::MultilineOption);
    static const QRegularExpression inputs(QStringLiteral("^def\\s+get_inputs\\s*\\("),
                                           QRegularExpression::MultilineOption);
    static const QRegularExpression init(QStringLiteral("^def\\s+get_init_inputs\\s*\\("),
                                         QRegularExpression::MultilineOption);
    QStringList missing;
    if (!model.match(code).hasMatch())
        missing << QStringLiteral("`class Model`");
    if (!inputs.match(code).hasMatch())
        missing << QStringLiteral("`def get_inputs()`");
    if (!init.match(code).hasMatch())
        missing << QStringLiteral("`def get_init_inputs()`");
    if (!missing.isEmpty())
        return fail(QStringLiteral("not a KernelBench task: no %1 at top level").arg(missing.join(QStringLiteral(", no "))));

    const QFileInfo fi(path);
    Task t;
    t.name = fi.completeBaseName();
    t.path = fi.canonicalFilePath();
    t.level = levelOf(t.path);
    t.family = familyOf(source);
    t.sourceHash = QString::fromLatin1(QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex());
    return t;
}

QString TaskIndex::familyOf(const QString &source)
{
    const QString code = withoutComments(source);
    auto has = [&](const char *pattern) {
        return QRegularExpression(QString::fromLatin1(pattern)).match(code).hasMatch();
    };
    // Most specific first: a recurrent layer decides even when it is followed by a Linear.
    if (has("\\bnn\\.GRU\\b|\\bGRU\\s*\\(|\\bgru_cell\\b|\\bGRUCell\\b"))
        return QStringLiteral("gru");
    if (has("\\bnn\\.LSTM\\b|\\bLSTM\\s*\\(|\\bLSTMCell\\b"))
        return QStringLiteral("lstm");
    if (has("\\b(torch\\.)?(matmul|mm|bmm|addmm|einsum)\\s*\\(|\\bnn\\.Linear\\b|\\bF\\.linear\\b|[\\w\\)\\]][ \\t]*@[ \\t]*[\\w\\(]"))
        return QStringLiteral("matmul");
    if (has("\\b(softmax|log_softmax)\\b|\\bnn\\.(Log)?Softmax\\b"))
        return QStringLiteral("softmax");
    if (has("\\b(relu|gelu|silu|sigmoid|tanh|elu|selu|leaky_relu|hardtanh|hardswish|mish|softplus|clamp|exp|abs)\\s*\\("
            "|\\bnn\\.(ReLU|GELU|SiLU|Sigmoid|Tanh|ELU|SELU|LeakyReLU|Hardtanh|Hardswish|Mish|Softplus)\\b"
            "|\\btorch\\.(add|mul|sub|div|where|maximum|minimum)\\s*\\("))
        return QStringLiteral("elementwise");
    return QStringLiteral("other");
}

int TaskIndex::levelOf(const QString &path)
{
    static const QRegularExpression dir(QStringLiteral("^level[_-]?(\\d+)$"), QRegularExpression::CaseInsensitiveOption);
    static const QRegularExpression prefix(QStringLiteral("^(?:level|l)[_-]?(\\d+)_"), QRegularExpression::CaseInsensitiveOption);
    const QStringList parts = QDir::fromNativeSeparators(path).split(QLatin1Char('/'), Qt::SkipEmptyParts);
    if (!parts.isEmpty()) {
        const auto m = prefix.match(parts.last());
        if (m.hasMatch())
            return m.captured(1).toInt();
    }
    // The nearest "levelN" folder wins (a user copy of level3 inside some other level folder).
    for (qsizetype i = parts.size() - 2; i >= 0; --i) {
        const auto m = dir.match(parts.at(i));
        if (m.hasMatch())
            return m.captured(1).toInt();
    }
    return 0;
}

} // namespace kwb
