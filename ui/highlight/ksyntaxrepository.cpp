// SPDX-License-Identifier: MIT
#include "highlight/ksyntaxrepository.h"

#include <QGlobalStatic>

#include <KSyntaxHighlighting/Repository>

namespace kwb::ui::ksyntax {

namespace {
// Loading the repository reads a few hundred definition files (tens of ms): do it once per process,
// on first use, and share it between every view.
Q_GLOBAL_STATIC(KSyntaxHighlighting::Repository, s_repository)
} // namespace

bool available()
{
    static const bool ok = [] {
        auto *repo = s_repository();
        return repo->definitionForName(QStringLiteral("Markdown")).isValid()
            && repo->definitionForName(QStringLiteral("Python")).isValid()
            && repo->defaultTheme(KSyntaxHighlighting::Repository::LightTheme).isValid()
            && repo->defaultTheme(KSyntaxHighlighting::Repository::DarkTheme).isValid();
    }();
    return ok;
}

KSyntaxHighlighting::Definition definition(const QString &name)
{
    return s_repository()->definitionForName(name);
}

KSyntaxHighlighting::Theme theme(bool dark)
{
    return s_repository()->defaultTheme(
        dark ? KSyntaxHighlighting::Repository::DarkTheme : KSyntaxHighlighting::Repository::LightTheme);
}

} // namespace kwb::ui::ksyntax
