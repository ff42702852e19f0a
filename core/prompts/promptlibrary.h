// SPDX-License-Identifier: MIT
#pragma once

#include "model/llmexchange.h"

#include <QHash>
#include <QList>
#include <QString>
#include <QStringList>

namespace kwb::prompts {

/// Prompt templates: Markdown files under the shipped prompts/ folder (env::promptsDir()), each
/// shadowed by a file of the same relative name in a user folder.
///
/// Syntax: `{{name}}` a value (every one must be given: a missing value is an error naming it);
/// `{{> snippets/rnn_hybrid}}` includes another template (".md" implied; `${var}` inside the
/// path is replaced by a value, e.g. `{{> snippets/backend_${backend}}}`);
/// `{{#name}}...{{/name}}` keeps its body only when the value `name` is non-empty.
/// Values are inserted verbatim and never re-scanned, so code containing braces is safe.
/// Template names are relative paths without ".md": "seed", "snippets/triton_pitfalls".
class PromptLibrary
{
public:
    /// Empty builtinDir: env::promptsDir(). Empty userDir: <config dir>/prompts
    /// ($KWB_CONFIG_DIR, else $XDG_CONFIG_HOME/kernel-workbench, else ~/.config/kernel-workbench).
    explicit PromptLibrary(const QString &builtinDir = {}, const QString &userDir = {});

    QString builtinDir() const { return m_builtinDir; }
    QString userDir() const { return m_userDir; }

    QStringList templateNames() const; ///< sorted, the union of both folders
    bool hasTemplate(const QString &name) const;
    /// The file that provides a template (the user's when it shadows the shipped one); empty if none.
    QString templateFile(const QString &name) const;
    /// Raw text of a template (no rendering).
    QString source(const QString &name, QString *error = nullptr) const;
    /// The value names a template needs, includes followed (sorted, unique).
    QStringList placeholders(const QString &name, QString *error = nullptr) const;

    /// Renders a template; on error returns an empty string and sets `error` (unknown template,
    /// missing value "{{x}}", include cycle, unbalanced section).
    QString render(const QString &name, const QHash<QString, QString> &vars, QString *error = nullptr) const;
    /// A conversation: the rendered "system" template (when there is one) then the rendered `name` as the user turn.
    QList<ChatMessage> renderMessages(const QString &name, const QHash<QString, QString> &vars,
                                      QString *error = nullptr) const;

    /// Copies the effective set (user files over shipped ones) into `dir`, same relative names,
    /// so a run is reproducible and two runs' prompts can be diffed.
    bool snapshotTo(const QString &dir, QString *error = nullptr) const;

private:
    QString m_builtinDir;
    QString m_userDir;
};

} // namespace kwb::prompts
