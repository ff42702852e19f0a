// SPDX-License-Identifier: MIT
#pragma once

// Renders a run for people: a text tree for the terminal (`kwb show`), a Markdown report and a
// self-contained HTML report (one file: inline CSS, an inline SVG latency chart, no scripts, no
// external resources). Output depends only on the Run (no clock, no locale), so it is golden-testable.

#include "model/run.h"

#include <QList>
#include <QString>

namespace kwb::report {

/// One line of the candidate tree in display order (depth-first, children after their parent).
struct TreeRow {
    const Candidate *candidate = nullptr;
    int depth = 0;
};

/// Depth-first order of the run's candidates; a candidate whose parent is missing becomes a root.
QList<TreeRow> treeOrder(const Run &run);

/// Short status mark: "✓" correct, "✗" failed, "!" integrity violation (no override), "…" pending,
/// "~" evaluating, "-" rejected; "*" is appended for the run's best candidate.
QString statusMark(const Run &run, const Candidate &c);

/// The run header plus one line per candidate, indented by parent: id, kind, label, mark,
/// median ms ± std, speedup vs eager and vs CUDA graph, max error, verdict count.
QString renderTextTree(const Run &run);

/// A candidate with a profile and the nearest ancestor that has one (null when none): the
/// before/after pairs the reports compare.
struct ProfilePair {
    const Candidate *before = nullptr;
    const Candidate *after = nullptr;
};
QList<ProfilePair> profilePairs(const Run &run);

/// The profiled candidates, one block each: roofline position and figures, the metrics, the time
/// profiling took; empty when no candidate has a profile. Part of renderTextTree().
QString renderProfilesText(const Run &run);

/// The whole report in Markdown (GitHub flavour): summary, tree, table, latency bars, verdicts
/// with evidence, tokens per call type, gates and decisions.
QString renderMarkdown(const Run &run);

/// The same report as one self-contained HTML file.
QString renderHtml(const Run &run);

} // namespace kwb::report
