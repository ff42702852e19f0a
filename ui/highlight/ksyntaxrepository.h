// SPDX-License-Identifier: MIT
#pragma once

// Built only with KSyntaxHighlighting (KF6). The process-wide repository of definitions and themes.

#include <KSyntaxHighlighting/Definition>
#include <KSyntaxHighlighting/Theme>

namespace kwb::ui::ksyntax {

/// True when the repository holds the "Markdown" and "Python" definitions and valid default themes.
bool available();
/// A definition by name (invalid when missing).
KSyntaxHighlighting::Definition definition(const QString &name);
/// The default light or dark theme (Breeze Light / Breeze Dark).
KSyntaxHighlighting::Theme theme(bool dark);

} // namespace kwb::ui::ksyntax
