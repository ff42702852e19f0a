// SPDX-License-Identifier: MIT
#pragma once

// Run directories outlive a failed test: a test that makes runs in a temporary folder calls
// keepIfFailed() from its cleanup() slot, and when the test function just failed the folder is
// copied to $KWB_TEST_KEEP_DIR/<test>-<function>-<time>/ (the build tree's Testing/kept-runs), so the
// events, console logs and evaluation results of the failing run can be read afterwards.

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QString>
#include <QTest>

namespace kwb::test {

/// Where kept folders go: $KWB_TEST_KEEP_DIR (the tests' CMakeLists point it at the build tree's
/// Testing/kept-runs), else kwb-kept-runs in the system temp folder.
inline QString keptRunsRoot()
{
    const QString env = qEnvironmentVariable("KWB_TEST_KEEP_DIR");
    return env.isEmpty() ? QDir::temp().filePath(QStringLiteral("kwb-kept-runs")) : env;
}

/// Copies `dir` (recursively) under keptRunsRoot() when the current test function has failed (or
/// always, with KWB_TEST_KEEP_RUNS=always: to compare a failing run with passing ones); returns the
/// copy's path (empty when nothing was kept). Call it from cleanup().
inline QString keepIfFailed(const QString &dir)
{
    const bool always = qEnvironmentVariable("KWB_TEST_KEEP_RUNS") == QLatin1String("always");
    if (!(always || QTest::currentTestFailed()) || dir.isEmpty() || !QFileInfo(dir).isDir())
        return {};
    const QString name = QStringLiteral("%1-%2-%3")
                             .arg(QCoreApplication::applicationName(),
                                  QString::fromLatin1(QTest::currentTestFunction()),
                                  QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-hhmmss-zzz")));
    const QString target = QDir(keptRunsRoot()).filePath(name);
    const QDir source(dir);
    QDirIterator it(dir, QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden | QDir::System,
                    QDirIterator::Subdirectories);
    QDir().mkpath(target);
    while (it.hasNext()) {
        const QString path = it.next();
        const QFileInfo info = it.fileInfo();
        const QString copy = QDir(target).filePath(source.relativeFilePath(path));
        if (info.isDir() && !info.isSymLink())
            QDir().mkpath(copy);
        else if (info.isFile() && QDir().mkpath(QFileInfo(copy).absolutePath()))
            QFile::copy(path, copy);
    }
    qWarning("kept the runs of %s in %s", QTest::currentTestFailed() ? "the failed test" : "the test", qPrintable(target));
    return target;
}

} // namespace kwb::test
