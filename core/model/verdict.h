// SPDX-License-Identifier: MIT
#pragma once

#include <QList>
#include <QString>

namespace kwb {

/// A place in a source file that a verdict points at, with the fact found there.
struct Evidence {
    int firstLine = 0; ///< 1-based; 0 when the fact is not tied to a line
    int lastLine = 0;
    QString text;
    bool operator==(const Evidence &) const = default;
};

enum class Outcome { Yes, No, CannotTell };
enum class Severity { Info, Warning, Error, Critical };

/// One detector's judgement of one candidate (static detectors, integrity checks, run-time checks).
struct Verdict {
    QString detector; ///< stable id, e.g. "persistent_kernel", "integrity.reference_call"
    Outcome outcome = Outcome::CannotTell;
    Severity severity = Severity::Info;
    QString summary; ///< one line
    QList<Evidence> evidence;
    QString suggestedFix; ///< text a re-prompt can include
    bool operator==(const Verdict &) const = default;

    /// True for a verdict that forbids a candidate from becoming "best" without a person's override.
    bool isIntegrityViolation() const
    {
        return detector.startsWith(QLatin1String("integrity.")) && outcome == Outcome::Yes
            && severity >= Severity::Error;
    }
};

QString toName(Outcome o);
Outcome outcomeFromString(const QString &s);
QString toName(Severity s);
Severity severityFromString(const QString &s);

} // namespace kwb
