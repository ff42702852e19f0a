// SPDX-License-Identifier: MIT
#pragma once

#include "model/candidate.h"
#include "model/verdict.h"

#include <QIcon>
#include <QString>

namespace kwb::icons {

/// What a candidate's status icon shows, from the most to the least telling fact.
enum class CandidateBadge { Pending, Evaluating, Correct, CorrectFlagged, Wrong, Failed, Rejected };
CandidateBadge badgeOf(const Candidate &c);
/// A few words for the status column ("correct", "compile error", "integrity!", ...).
QString statusText(const Candidate &c);

/// Icons are painted, not loaded: they stay crisp at any scale and need no resource file.
QIcon candidateIcon(const Candidate &c);
QIcon badgeIcon(CandidateBadge b);
QIcon verdictIcon(const Verdict &v);
/// The application's icon (a stylised kernel tile).
QIcon appIcon();

} // namespace kwb::icons
