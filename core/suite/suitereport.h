// SPDX-License-Identifier: MIT
#pragma once

// A suite for people: the table of tasks (failing first), the totals (correct, faster than eager,
// faster than the CUDA graph, geometric-mean speedups, tokens, cost) and a link per task to its
// run report. Markdown and one self-contained HTML file. Output depends only on the Suite (no
// clock, no locale), so it is golden-testable.

#include "suite/suite.h"

#include <QString>
#include <QStringList>

namespace kwb::suite {

/// Where a task's run report goes, relative to the suite directory ("runs/<id>/report.html"),
/// or empty before the task has a run.
QString runReportLink(const SuiteEntry &e, const QString &extension);

QString renderSuiteMarkdown(const Suite &suite, const QString &title);
QString renderSuiteHtml(const Suite &suite, const QString &title);

/// Writes suite-report.md and suite-report.html into the suite directory, and each task's run
/// report (report.md / report.html in its run directory) so the links work. Returns the two suite
/// report paths, or an empty list with `error`.
QStringList writeSuiteReports(const QString &suiteDir, const Suite &suite, QString *error = nullptr);

} // namespace kwb::suite
