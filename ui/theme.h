// SPDX-License-Identifier: MIT
#pragma once

#include <QString>

namespace kwb::theme {

enum class Theme { Light, Dark };

/// Applies a light or dark palette to the whole application (Fusion style, so the palette is
/// honoured the same way on every desktop).
void apply(Theme t);
Theme current();
QString toName(Theme t);
Theme fromName(const QString &name); ///< "dark" → Dark, anything else → Light

} // namespace kwb::theme
