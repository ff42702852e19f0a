// SPDX-License-Identifier: MIT
#pragma once

// The pipeline and provider options of `kwb run`, shared with `kwb suite`.

#include "pipeline/pipeline.h"
#include "pipeline/runsetup.h"

#include <QCommandLineParser>

#include <memory>
#include <optional>

namespace kwb {
class EvalBackend;
}

namespace kwb::cli {

/// Adds provider, model, seeds, max-repairs, threshold, auto, interactive, gates, runs-dir, device,
/// trials, repeat, no-stages, cassette and lenient.
void addRunOptions(QCommandLineParser &p);

/// Reads the options of addRunOptions into `cfg` and `request` (only what was given; the rest
/// keeps its value). Empty when good; otherwise the exit code, after the message on stderr.
std::optional<int> readRunOptions(const QCommandLineParser &p, const char *command, pipeline::PipelineConfig &cfg,
                                  pipeline::ProviderRequest &request, bool *interactive);

/// FOR TESTS AND DEMOS: $KWB_SCRIPTED_EVAL names a script (core/eval/scriptedevaluator.h) that answers
/// every evaluation of `kwb run` and of `kwb suite`'s local lanes, so a test can assert the pipeline's
/// decisions without a CPU clock deciding them. Nothing runs then, and the command says so on stdout.
/// Empty when unset.
QString scriptedEvalScript();
/// The ScriptedEvaluator of scriptedEvalScript(), loaded, after a line on stdout saying that no
/// candidate is run or measured; null (with the reason on stderr) when the script cannot be used.
std::unique_ptr<EvalBackend> scriptedEvaluator(const char *command, bool announce = true);

} // namespace kwb::cli
