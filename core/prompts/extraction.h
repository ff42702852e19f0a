// SPDX-License-Identifier: MIT
#pragma once

#include <QJsonObject>
#include <QString>

#include <optional>

namespace kwb::prompts {

/// The kernel code found in an LLM answer.
struct CodeExtraction {
    QString code; ///< empty when nothing usable came back (then error says why)
    QString error;
    int blocks = 0; ///< fenced code blocks seen
    bool definesModelNew = false;
    bool fenced = true; ///< false when the code was taken from an unfenced answer
};

/// Picks the code: fenced ```python / ```py / ``` blocks (others only when there is no such block);
/// among several, the one defining `class ModelNew` (the longest of those), else the longest.
/// An answer without fences counts when it reads as Python (prose before/after is trimmed).
CodeExtraction extractCode(const QString &response);

/// The algorithm-analysis answer (the seeds' fields plus complexity, kernel type and output requirement).
struct Analysis {
    bool worthOptimizing = false;
    QString reason, bottleneck, method, plan, expectedSpeedup;
    QString implementationComplexity; ///< "low" | "medium" | "high" | "persistent" (normalized; raw text otherwise)
    QString kernelType;
    QString outputRequirement; ///< "full_sequence" | "final_hidden_only" (normalized; raw text otherwise)
    QJsonObject raw; ///< the parsed object, keys as the model wrote them
};

/// Finds and parses the analysis JSON: fenced or bare, with text around it, and slightly
/// malformed (trailing commas, single quotes, // and /* */ comments, Python True/False/None).
/// nullopt + error when no JSON object or no worth_optimizing field can be found.
std::optional<Analysis> extractAnalysis(const QString &response, QString *error = nullptr);

/// The lenient JSON object parser extractAnalysis uses (exposed for other structured answers).
std::optional<QJsonObject> parseLenientJsonObject(const QString &text, QString *error = nullptr);

/// The analysis as readable text for the optimize prompt.
QString formatAnalysis(const Analysis &analysis);

} // namespace kwb::prompts
