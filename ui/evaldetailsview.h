// SPDX-License-Identifier: MIT
#pragma once

#include "model/candidate.h"

#include <QWidget>

class QTextBrowser;

namespace kwb {

/// Everything one evaluation of a candidate found, in one place: status and reason, errors against
/// the strict-fp32 and the fp64 references, timings with their spread against both baselines
/// (speedups inside the spread marked as noise), peak device memory of candidate and reference
/// (when measured), the run-time integrity checks, the profile metrics (when profiled), where it
/// ran, and the worker's log tail. A widget over the value types: it reads no file.
class EvalDetailsView : public QWidget
{
    Q_OBJECT
public:
    explicit EvalDetailsView(QWidget *parent = nullptr);

    /// Shows the evaluation of a candidate; nullptr clears the view.
    void showCandidate(const Candidate *c);
    /// The text on display (tests, copy).
    QString plainText() const;
    QTextBrowser *browser() const { return m_text; }

    /// The HTML the view shows for a candidate (also usable by a report).
    static QString html(const Candidate &c);

private:
    QTextBrowser *m_text;
};

} // namespace kwb
