// SPDX-License-Identifier: MIT
#pragma once

// The pipeline and provider options of `kwb run`, shared with `kwb suite`.

#include "pipeline/pipeline.h"
#include "pipeline/runsetup.h"

#include <QCommandLineParser>

#include <optional>

namespace kwb::cli {

/// Adds provider, model, seeds, max-repairs, threshold, auto, interactive, gates, runs-dir, device,
/// trials, repeat, no-stages, cassette and lenient.
void addRunOptions(QCommandLineParser &p);

/// Reads the options of addRunOptions into `cfg` and `request` (only what was given; the rest
/// keeps its value). Empty when good; otherwise the exit code, after the message on stderr.
std::optional<int> readRunOptions(const QCommandLineParser &p, const char *command, pipeline::PipelineConfig &cfg,
                                  pipeline::ProviderRequest &request, bool *interactive);

} // namespace kwb::cli
