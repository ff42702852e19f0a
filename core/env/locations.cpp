// SPDX-License-Identifier: MIT
#include "locations.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>
#include <QStandardPaths>

namespace kwb::env {

QString pythonInterpreter(const QString &setting)
{
    if (!setting.isEmpty())
        return setting;
    const QString fromEnv = qEnvironmentVariable("KWB_PYTHON");
    return fromEnv.isEmpty() ? QStringLiteral("python3") : fromEnv;
}

QString dataDir()
{
    const QString fromEnv = qEnvironmentVariable("KWB_DATA_DIR");
    if (!fromEnv.isEmpty())
        return QDir(fromEnv).absolutePath();
    // An installed executable uses the installed data, even where its source tree still exists.
    if (QCoreApplication::instance()
        && QFileInfo(QCoreApplication::applicationDirPath()).canonicalFilePath()
            == QFileInfo(QStringLiteral(KWB_INSTALL_BINDIR)).canonicalFilePath())
        return QStringLiteral(KWB_INSTALL_DATADIR);
    // A build-tree binary uses the sources it was built from; an installed one uses the prefix.
    const QString source = QStringLiteral(KWB_SOURCE_DIR);
    if (QFileInfo::exists(source + QStringLiteral("/core/eval/worker/kwb_worker.py")))
        return source;
    return QStringLiteral(KWB_INSTALL_DATADIR);
}

QString workerScript()
{
    const QString data = dataDir();
    const QString inTree = data + QStringLiteral("/core/eval/worker/kwb_worker.py");
    if (QFileInfo::exists(inTree))
        return inTree;
    return data + QStringLiteral("/worker/kwb_worker.py");
}

QString promptsDir() { return dataDir() + QStringLiteral("/prompts"); }
QString tasksDir() { return dataDir() + QStringLiteral("/tasks"); }
QString resourcesDir() { return dataDir() + QStringLiteral("/resources"); }

QString runsDir(const QString &cliValue)
{
    if (!cliValue.isEmpty())
        return QDir(cliValue).absolutePath();
    const QString fromEnv = qEnvironmentVariable("KWB_RUNS_DIR");
    if (!fromEnv.isEmpty())
        return QDir(fromEnv).absolutePath();
    return QDir::current().absoluteFilePath(QStringLiteral("runs"));
}

QString cacheDir()
{
    QString base = qEnvironmentVariable("XDG_CACHE_HOME");
    if (base.isEmpty())
        base = QDir::homePath() + QStringLiteral("/.cache");
    return base + QStringLiteral("/kernel-workbench");
}

QString configDir()
{
    const QString explicitDir = qEnvironmentVariable("KWB_CONFIG_DIR");
    if (!explicitDir.isEmpty())
        return QDir(explicitDir).absolutePath();
    QString base = qEnvironmentVariable("XDG_CONFIG_HOME");
    if (base.isEmpty())
        base = QDir::homePath() + QStringLiteral("/.config");
    return base + QStringLiteral("/kernel-workbench");
}

bool isSecretVariable(const QString &name)
{
    static const QRegularExpression secret(
        QStringLiteral("(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH|SESSION|COOKIE)"),
        QRegularExpression::CaseInsensitiveOption);
    static const QStringList prefixes{QStringLiteral("AWS_"), QStringLiteral("AZURE_"), QStringLiteral("GOOGLE_"),
                                      QStringLiteral("GCP_"), QStringLiteral("OPENAI"), QStringLiteral("ANTHROPIC"),
                                      QStringLiteral("DEEPSEEK"), QStringLiteral("OPENROUTER"),
                                      QStringLiteral("HF_"), QStringLiteral("KWB_LLM_")};
    if (name.contains(secret))
        return true;
    for (const auto &p : prefixes)
        if (name.startsWith(p, Qt::CaseInsensitive))
            return true;
    return false;
}

QProcessEnvironment scrubbedEnvironment(const QProcessEnvironment &from)
{
    QProcessEnvironment out;
    for (const QString &name : from.keys())
        if (!isSecretVariable(name))
            out.insert(name, from.value(name));
    return out;
}

} // namespace kwb::env
