// SPDX-License-Identifier: MIT
#pragma once

#include "model/run.h"

#include <QImage>
#include <QString>

class QWidget;

namespace kwb {

class LatencyChart;

enum class ReportFormat { Html, Markdown };

/// ".md" / ".markdown" → Markdown, anything else → HTML.
ReportFormat reportFormatForPath(const QString &path);

/// Writes core/report's rendering of `run` to `path` (atomically, QSaveFile), in the format its
/// suffix names. HTML: a non-null `chart` is embedded as a base64 PNG figure (the file stays
/// self-contained). Markdown: the chart goes next to it as "<name>-latency.png" and is linked.
bool exportReport(const Run &run, const QString &path, const QImage &chart = {}, QString *error = nullptr);

/// Asks for a file (HTML or Markdown), renders `chart` (may be null) at 1200×600 and exports.
/// Returns the path written, or empty when cancelled or failed (a message box says why).
QString exportReportInteractive(QWidget *parent, const Run &run, const LatencyChart *chart);

} // namespace kwb
