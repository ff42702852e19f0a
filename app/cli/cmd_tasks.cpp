// SPDX-License-Identifier: MIT
// `kwb tasks [DIR...] [--json]`: the task library (shipped tasks/ plus the given folders).
#include "commands.h"
#include "optionreader.h"

#include "tasks/taskindex.h"

#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

int kwb::cli::runTasks(const QStringList &args)
{
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral("List the task library: the shipped tasks and the KernelBench files in DIR..."));
    p.addHelpOption();
    p.addPositionalArgument(QStringLiteral("DIR"), QStringLiteral("more folders to scan (recursively)"), QStringLiteral("[DIR...]"));
    const QCommandLineOption json(QStringLiteral("json"), QStringLiteral("print JSON"));
    const QCommandLineOption noShipped(QStringLiteral("no-shipped"), QStringLiteral("leave out the shipped tasks"));
    p.addOption(json);
    p.addOption(noShipped);
    if (const auto done = parseCommandLine(p, "tasks", args))
        return *done;

    TaskIndex index(!p.isSet(noShipped));
    for (const QString &dir : p.positionalArguments()) {
        if (!QFileInfo(dir).isDir()) {
            err() << "kwb tasks: no such folder: " << dir << "\n";
            return InputError;
        }
        index.addDirectory(dir);
    }
    const QList<Task> tasks = index.tasks();

    if (p.isSet(json)) {
        QJsonArray a;
        for (const Task &t : tasks)
            a.append(QJsonObject{{QStringLiteral("name"), t.name},
                                 {QStringLiteral("path"), t.path},
                                 {QStringLiteral("level"), t.level},
                                 {QStringLiteral("family"), t.family},
                                 {QStringLiteral("sha256"), t.sourceHash}});
        const QJsonObject o{{QStringLiteral("tasks"), a},
                            {QStringLiteral("problems"), QJsonArray::fromStringList(index.problems())}};
        out() << QJsonDocument(o).toJson(QJsonDocument::Indented);
        return Success;
    }

    int nameWidth = 4;
    for (const Task &t : tasks)
        nameWidth = qMax(nameWidth, int(t.name.size()));
    out() << QStringLiteral("name").leftJustified(nameWidth + 2) << "level  " << QStringLiteral("family").leftJustified(13)
          << "sha256        path\n";
    for (const Task &t : tasks) {
        const QString rel = QDir::current().relativeFilePath(t.path);
        out() << t.name.leftJustified(nameWidth + 2)
              << (t.level > 0 ? QString::number(t.level) : QStringLiteral("-")).leftJustified(7)
              << t.family.leftJustified(13) << t.sourceHash.left(12) << "  "
              << (rel.startsWith(QLatin1String("..")) ? t.path : rel) << "\n";
    }
    out() << tasks.size() << (tasks.size() == 1 ? " task" : " tasks") << "\n";
    for (const QString &problem : index.problems())
        err() << "skipped " << problem << "\n";
    return Success;
}
