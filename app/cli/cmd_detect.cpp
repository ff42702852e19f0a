// SPDX-License-Identifier: MIT
// kwb detect TASK CANDIDATE [--json] [--sm-count N] [--python PATH] [--policy]
#include "commands.h"

#include "detect/detectorrunner.h"
#include "detect/policy.h"
#include "model/json.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace {

void detectUsage(QTextStream &s)
{
    s << "usage: kwb detect TASK CANDIDATE [--json] [--sm-count N] [--python PATH]\n"
         "       kwb detect --policy\n\n"
         "Runs the static detectors on CANDIDATE (parsed, never run) and prints each verdict with its\n"
         "evidence, then the policy's stage plan.\n"
         "  --json         one JSON object: {\"verdicts\": [...], \"plan\": {...}}\n"
         "  --sm-count N   SMs of the target GPU for the grid estimate (default 132, H100)\n"
         "  --python PATH  interpreter for the detectors (default $KWB_PYTHON or python3)\n"
         "  --policy       print the policy table and exit\n"
         "Exit codes: 0 no integrity violation, 1 an integrity violation, 2 usage, 3 missing file,\n"
         "4 Python failed.\n";
}

} // namespace

int kwb::cli::runDetect(const QStringList &args)
{
    using namespace kwb::detect;
    QStringList files;
    bool asJson = false;
    int smCount = 132;
    QString python;
    for (int i = 0; i < args.size(); ++i) {
        const QString &a = args.at(i);
        if (a == QLatin1String("--help") || a == QLatin1String("-h")) {
            detectUsage(out());
            return Success;
        } else if (a == QLatin1String("--policy")) {
            out() << describePolicy();
            return Success;
        } else if (a == QLatin1String("--json")) {
            asJson = true;
        } else if (a == QLatin1String("--sm-count") && i + 1 < args.size()) {
            bool ok = false;
            smCount = args.at(++i).toInt(&ok);
            if (!ok || smCount <= 0) {
                err() << "kwb detect: --sm-count needs a positive number\n";
                return UsageError;
            }
        } else if (a == QLatin1String("--python") && i + 1 < args.size()) {
            python = args.at(++i);
        } else if (a.startsWith(QLatin1String("--"))) {
            err() << "kwb detect: unknown option " << a << "\n";
            detectUsage(err());
            return UsageError;
        } else {
            files << a;
        }
    }
    if (files.size() != 2) {
        detectUsage(err());
        return UsageError;
    }
    for (const auto &f : files) {
        if (!QFileInfo(f).isFile()) {
            err() << "kwb detect: no such file: " << f << "\n";
            return InputError;
        }
    }

    DetectorRunner runner;
    runner.setSmCount(smCount);
    if (!python.isEmpty())
        runner.setPython(python);
    const DetectResult r = runner.runBlocking(files.at(0), files.at(1));
    if (!r.ok) {
        err() << "kwb detect: " << r.error << "\n";
        return EnvironmentError;
    }
    const StagePlan plan = planStages(r.verdicts);
    bool violation = false;
    for (const auto &v : r.verdicts)
        violation = violation || v.isIntegrityViolation();

    if (asJson) {
        QJsonObject planJson{{"grid", plan.grid},
                             {"block", plan.block},
                             {"memory", plan.memory},
                             {"rule", plan.rule},
                             {"explanation", plan.explanation},
                             {"prompt_notes", QJsonArray::fromStringList(plan.promptNotes)}};
        QJsonObject doc{{"verdicts", json::toJson(r.verdicts)},
                        {"plan", planJson},
                        {"integrity_violation", violation}};
        out() << QJsonDocument(doc).toJson(QJsonDocument::Indented);
        return violation ? Failure : Success;
    }

    out() << "Detectors on " << files.at(1) << " (task " << QFileInfo(files.at(0)).fileName() << ")\n\n";
    for (const auto &v : r.verdicts) {
        const bool yes = v.outcome == Outcome::Yes;
        if (!yes && v.outcome == Outcome::No && v.evidence.isEmpty()) {
            out() << "  no   " << v.detector << ": " << v.summary << "\n";
            continue;
        }
        out() << "  " << toName(v.outcome).leftJustified(4) << " " << v.detector << " [" << toName(v.severity)
              << "]" << (v.isIntegrityViolation() ? " INTEGRITY VIOLATION" : "") << ": " << v.summary << "\n";
        for (const auto &e : v.evidence) {
            if (e.firstLine > 0)
                out() << "         lines " << e.firstLine << "-" << e.lastLine << ": " << e.text << "\n";
            else
                out() << "         " << e.text << "\n";
        }
        if (yes && !v.suggestedFix.isEmpty())
            out() << "         fix: " << v.suggestedFix << "\n";
    }
    out() << "\nNext step: " << describePlan(plan) << "\n";
    for (const auto &line : plan.explanation.split(QLatin1Char('\n'), Qt::SkipEmptyParts))
        out() << "  " << line << "\n";
    if (!plan.promptNotes.isEmpty())
        out() << "  prompt notes: " << plan.promptNotes.size() << "\n";
    if (violation)
        out() << "\nIntegrity violation: this candidate cannot become best without a person's override.\n";
    return violation ? Failure : Success;
}
