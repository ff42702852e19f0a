// SPDX-License-Identifier: MIT
#include "promptlibrary.h"

#include "env/locations.h"

#include <QCryptographicHash>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSaveFile>
#include <QSet>

namespace kwb::prompts {

namespace {

constexpr int kMaxIncludeDepth = 16;
const QString kExt = QStringLiteral(".md");

QString defaultUserDir()
{
    return env::configDir() + QStringLiteral("/prompts");
}

QStringList listTemplates(const QString &dir)
{
    QStringList names;
    if (dir.isEmpty() || !QFileInfo(dir).isDir())
        return names;
    const QDir root(dir);
    QDirIterator it(dir, {QStringLiteral("*") + kExt}, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString rel = root.relativeFilePath(it.next());
        if (QFileInfo(rel).fileName().compare(QLatin1String("README.md"), Qt::CaseInsensitive) == 0)
            continue; // documentation, not a template
        names << rel.chopped(kExt.size());
    }
    return names;
}

/// `{{name}}`, `{{> include/path_${var}}}`, `{{#section}}`, `{{/section}}`, `{{! comment }}`.
const QRegularExpression &tagPattern()
{
    static const QRegularExpression re(
        QStringLiteral(R"(\{\{\s*([>#/!]?)\s*((?:[^{}]|\$\{[A-Za-z0-9_]+\})*?)\s*\}\})"));
    return re;
}

/// Walks a template once. In collect mode it records the value names instead of requiring them.
struct Renderer {
    const PromptLibrary &lib;
    const QHash<QString, QString> &vars;
    QSet<QString> *collected = nullptr;
    QStringList stack; // include chain, for cycles and messages
    QString error;

    bool value(const QString &name, QString *out)
    {
        if (collected) {
            collected->insert(name);
            *out = QStringLiteral("x"); // sections render their bodies so nested names are found
            return true;
        }
        const auto it = vars.constFind(name);
        if (it == vars.constEnd()) {
            error = QStringLiteral("prompt template '%1': no value for placeholder {{%2}}").arg(stack.last(), name);
            return false;
        }
        *out = *it;
        return true;
    }

    QString run(const QString &name)
    {
        if (stack.contains(name)) {
            error = QStringLiteral("prompt include cycle: %1 -> %2").arg(stack.join(QStringLiteral(" -> ")), name);
            return {};
        }
        if (stack.size() >= kMaxIncludeDepth) {
            error = QStringLiteral("prompt includes nested deeper than %1 at '%2'").arg(kMaxIncludeDepth).arg(name);
            return {};
        }
        QString readError;
        const QString text = lib.source(name, &readError);
        if (!readError.isEmpty()) {
            error = stack.isEmpty() ? readError
                                    : QStringLiteral("prompt template '%1' includes '%2': %3")
                                          .arg(stack.last(), name, readError);
            return {};
        }
        stack.push_back(name);
        QString out = renderText(text);
        stack.pop_back();
        return out;
    }

    QString renderText(const QString &text)
    {
        struct Open {
            QString name;
            qsizetype mark;
            bool keep;
        };
        QList<Open> open;
        QString out;
        qsizetype pos = 0;
        auto it = tagPattern().globalMatch(text);
        while (it.hasNext()) {
            const auto m = it.next();
            out += QStringView(text).mid(pos, m.capturedStart() - pos);
            pos = m.capturedEnd();
            const QString kind = m.captured(1);
            const QString arg = m.captured(2).trimmed();
            // A section or comment tag alone on its line takes its line break with it.
            const bool aloneOnLine = (m.capturedStart() == 0 || text.at(m.capturedStart() - 1) == QLatin1Char('\n'))
                && pos < text.size() && text.at(pos) == QLatin1Char('\n');
            if (kind == QLatin1String("!")) {
                if (aloneOnLine)
                    ++pos;
                continue;
            }
            if (arg.isEmpty()) {
                error = QStringLiteral("prompt template '%1': empty tag '%2'").arg(stack.last(), m.captured(0));
                return {};
            }
            if (kind == QLatin1String(">")) {
                QString path = arg;
                static const QRegularExpression var(QStringLiteral(R"(\$\{([A-Za-z0-9_]+)\})"));
                for (auto vm = var.globalMatch(arg); vm.hasNext();) {
                    const auto v = vm.next();
                    QString val;
                    if (!value(v.captured(1), &val))
                        return {};
                    if (collected)
                        return out; // a computed include cannot be followed without values
                    path.replace(v.captured(0), val);
                }
                QString included = run(path);
                if (!error.isEmpty())
                    return {};
                if (included.endsWith(QLatin1Char('\n')))
                    included.chop(1);
                out += included;
            } else if (kind == QLatin1String("#")) {
                QString val;
                if (!value(arg, &val))
                    return {};
                if (aloneOnLine)
                    ++pos;
                open.append({arg, out.size(), !val.trimmed().isEmpty()});
            } else if (kind == QLatin1String("/")) {
                if (open.isEmpty() || open.last().name != arg) {
                    error = QStringLiteral("prompt template '%1': {{/%2}} closes no open section").arg(stack.last(), arg);
                    return {};
                }
                if (aloneOnLine)
                    ++pos;
                const Open o = open.takeLast();
                if (!o.keep)
                    out.truncate(o.mark);
            } else {
                QString val;
                if (!value(arg, &val))
                    return {};
                out += val;
            }
        }
        if (!open.isEmpty()) {
            error = QStringLiteral("prompt template '%1': section {{#%2}} is never closed").arg(stack.last(),
                                                                                               open.last().name);
            return {};
        }
        out += QStringView(text).mid(pos);
        return out;
    }
};

} // namespace

PromptLibrary::PromptLibrary(const QString &builtinDir, const QString &userDir)
    : m_builtinDir(builtinDir.isEmpty() ? env::promptsDir() : builtinDir)
    , m_userDir(userDir.isEmpty() ? defaultUserDir() : userDir)
{
}

QStringList PromptLibrary::templateNames() const
{
    QStringList names = listTemplates(m_builtinDir) + listTemplates(m_userDir);
    names.sort();
    names.removeDuplicates();
    return names;
}

QString PromptLibrary::templateFile(const QString &name) const
{
    if (name.contains(QLatin1String("..")))
        return {}; // names are relative paths inside the folders
    for (const QString &dir : {m_userDir, m_builtinDir}) {
        if (dir.isEmpty())
            continue;
        const QString f = QDir(dir).filePath(name + kExt);
        if (QFileInfo(f).isFile())
            return f;
    }
    return {};
}

bool PromptLibrary::hasTemplate(const QString &name) const
{
    return !templateFile(name).isEmpty();
}

QString PromptLibrary::source(const QString &name, QString *error) const
{
    const QString file = templateFile(name);
    if (file.isEmpty()) {
        if (error)
            *error = QStringLiteral("no prompt template '%1' (looked in %2 and %3)").arg(name, m_userDir, m_builtinDir);
        return {};
    }
    QFile f(file);
    if (!f.open(QIODevice::ReadOnly)) {
        if (error)
            *error = QStringLiteral("cannot read %1: %2").arg(file, f.errorString());
        return {};
    }
    return QString::fromUtf8(f.readAll());
}

QStringList PromptLibrary::placeholders(const QString &name, QString *error) const
{
    const QHash<QString, QString> none;
    QSet<QString> names;
    Renderer r{*this, none, &names, {}, {}};
    r.run(name);
    if (!r.error.isEmpty() && error)
        *error = r.error;
    QStringList list(names.begin(), names.end());
    list.sort();
    return list;
}

QString PromptLibrary::render(const QString &name, const QHash<QString, QString> &vars, QString *error) const
{
    Renderer r{*this, vars, nullptr, {}, {}};
    QString out = r.run(name);
    if (!r.error.isEmpty()) {
        if (error)
            *error = r.error;
        return {};
    }
    return out;
}

QList<ChatMessage> PromptLibrary::renderMessages(const QString &name, const QHash<QString, QString> &vars,
                                                 QString *error) const
{
    QList<ChatMessage> messages;
    if (hasTemplate(QStringLiteral("system"))) {
        QString err;
        const QString system = render(QStringLiteral("system"), vars, &err);
        if (!err.isEmpty()) {
            if (error)
                *error = err;
            return {};
        }
        messages.append({QStringLiteral("system"), system.trimmed()});
    }
    QString err;
    const QString user = render(name, vars, &err);
    if (!err.isEmpty()) {
        if (error)
            *error = err;
        return {};
    }
    messages.append({QStringLiteral("user"), user.trimmed()});
    return messages;
}

bool PromptLibrary::snapshotTo(const QString &dir, QString *error) const
{
    QJsonObject manifest;
    const QDir out(dir);
    for (const QString &name : templateNames()) {
        const QString from = templateFile(name);
        QFile in(from);
        if (!in.open(QIODevice::ReadOnly)) {
            if (error)
                *error = QStringLiteral("cannot read %1: %2").arg(from, in.errorString());
            return false;
        }
        const QByteArray bytes = in.readAll();
        const QString to = out.filePath(name + kExt);
        if (!QDir().mkpath(QFileInfo(to).absolutePath())) {
            if (error)
                *error = QStringLiteral("cannot create %1").arg(QFileInfo(to).absolutePath());
            return false;
        }
        QSaveFile f(to);
        if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size() || !f.commit()) {
            if (error)
                *error = QStringLiteral("cannot write %1: %2").arg(to, f.errorString());
            return false;
        }
        const bool fromUser = !m_userDir.isEmpty()
            && QFileInfo(from).absoluteFilePath().startsWith(QDir(m_userDir).absolutePath() + QLatin1Char('/'));
        manifest.insert(name, QJsonObject{{"origin", fromUser ? "user" : "builtin"},
                                          {"sha256", QString::fromLatin1(QCryptographicHash::hash(
                                                         bytes, QCryptographicHash::Sha256).toHex())}});
    }
    QSaveFile m(out.filePath(QStringLiteral("manifest.json")));
    if (!QDir().mkpath(dir) || !m.open(QIODevice::WriteOnly)) {
        if (error)
            *error = QStringLiteral("cannot write %1").arg(m.fileName());
        return false;
    }
    m.write(QJsonDocument(QJsonObject{{"templates", manifest}}).toJson(QJsonDocument::Indented));
    if (!m.commit()) {
        if (error)
            *error = QStringLiteral("cannot write %1: %2").arg(m.fileName(), m.errorString());
        return false;
    }
    return true;
}

} // namespace kwb::prompts
