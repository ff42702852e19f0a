// SPDX-License-Identifier: MIT
#pragma once

// Real Nsight Compute captures (tests/data/profile, made on an H100 by tests/gpu/profile_capture.py)
// turned into profiles the way the product does it: the worker's own parser (kwb_worker.profile,
// run here as a real process) for the raw CSV, json.cpp for the worker's eval result.

#include "model/json.h"
#include "model/profile.h"
#include "model/run.h"

#include <QFile>
#include <QJsonDocument>
#include <QMap>
#include <QProcess>
#include <QString>
#include <QStringList>

namespace kwb::test {

/// The profile dict the worker makes of tests/data/profile/ncu_<name>.csv (empty with `error` set on failure).
inline QMap<QString, double> parseCapturedCsv(const QString &name, QString *error = nullptr)
{
    QProcess p;
    p.setWorkingDirectory(QStringLiteral(KWB_SOURCE_DIR "/core/eval/worker"));
    p.start(qEnvironmentVariable("KWB_TEST_PYTHON", QStringLiteral("/usr/bin/python3")),
            {QStringLiteral("-m"), QStringLiteral("kwb_worker.profile"), QStringLiteral("parse"),
             QStringLiteral(KWB_TEST_DATA "/profile/ncu_%1.csv").arg(name), QStringLiteral("--max-launches"),
             QStringLiteral("64")});
    QMap<QString, double> out;
    if (!p.waitForFinished(60000) || p.exitCode() != 0) {
        if (error)
            *error = QString::fromUtf8(p.readAllStandardError()) + p.errorString();
        return out;
    }
    const QJsonObject o = QJsonDocument::fromJson(p.readAllStandardOutput()).object();
    for (auto it = o.constBegin(); it != o.constEnd(); ++it)
        out.insert(it.key(), it.value().toDouble());
    return out;
}

/// A candidate's profile from a capture: the CSV's metrics, the device it was captured on, the bound note.
inline KernelProfile capturedProfile(const QString &name, QString *error = nullptr)
{
    KernelProfile p;
    p.metrics = parseCapturedCsv(name, error);
    p.device = QStringLiteral("cuda:0 NVIDIA H100 80GB HBM3");
    if (p.metrics.value(QStringLiteral("launch_bound_reached")) > 0)
        p.note = QStringLiteral("profiled the first 64 kernel launches of one forward (the bound; it launches more)");
    return p;
}

/// The worker's whole eval result (`kwb_worker.py eval --profile --json`) of tests/data/profile/eval_<name>.json.
inline EvalResult capturedEval(const QString &name)
{
    QFile f(QStringLiteral(KWB_TEST_DATA "/profile/eval_%1.json").arg(name));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return json::evalResultFromJson(QJsonDocument::fromJson(f.readAll()).object());
}

/// A 39_GRU run with profiles: c0002 seed1 (the captured naive seed, stored profile), c0003 its repair
/// (no profile), c0004 the rewrite (profile from the worker's eval --profile of the showcase kernel),
/// c0005 a seed profiled without a GPU (the one-line reason only), c0006 1_ReLU's Triton kernel.
inline Run gruProfiledRun()
{
    Run run;
    run.info.id = QStringLiteral("20261124-213500_39_GRU_test");
    Candidate seed;
    seed.id = QStringLiteral("c0002");
    seed.kind = CandidateKind::Seed;
    seed.label = QStringLiteral("seed1");
    seed.status = CandidateStatus::Evaluated;
    seed.profile = capturedProfile(QStringLiteral("gru39_seed"));
    seed.profile->seconds = 27.4; // the capture's (tests/data/profile/README.md)
    Candidate repair = seed;
    repair.id = QStringLiteral("c0003");
    repair.kind = CandidateKind::Repair;
    repair.label = QStringLiteral("seed1_repair1");
    repair.parentId = seed.id;
    repair.profile.reset();
    Candidate child;
    child.id = QStringLiteral("c0004");
    child.kind = CandidateKind::AlgoOpt;
    child.label = QStringLiteral("algorithm_optimized_seed1");
    child.parentId = repair.id;
    child.status = CandidateStatus::Evaluated;
    child.eval = capturedEval(QStringLiteral("gru39_showcase"));
    Candidate cpu;
    cpu.id = QStringLiteral("c0005");
    cpu.label = QStringLiteral("seed2");
    cpu.profile = KernelProfile();
    cpu.profile->note = QStringLiteral("not profiled: no GPU");
    Candidate relu; // another root, memory-bound: 1_ReLU's Triton kernel (eval --profile)
    relu.id = QStringLiteral("c0006");
    relu.label = QStringLiteral("relu");
    relu.status = CandidateStatus::Evaluated;
    relu.eval = capturedEval(QStringLiteral("relu1_triton"));
    run.candidates = {seed, repair, child, cpu, relu};
    return run;
}

/// Per metric name, the per-kernel values of a capture's CSV, read directly (no worker code): the
/// independent side of the arithmetic checks.
inline QMap<QString, QList<double>> csvColumns(const QString &name)
{
    QMap<QString, QList<double>> out;
    QFile f(QStringLiteral(KWB_TEST_DATA "/profile/ncu_%1.csv").arg(name));
    if (!f.open(QIODevice::ReadOnly | QIODevice::Text))
        return out;
    auto fields = [](const QString &line) {
        QStringList fs;
        QString cur;
        bool quoted = false;
        for (int i = 0; i < line.size(); ++i) {
            const QChar ch = line[i];
            if (quoted) {
                if (ch == u'"' && i + 1 < line.size() && line[i + 1] == u'"')
                    cur += line[++i];
                else if (ch == u'"')
                    quoted = false;
                else
                    cur += ch;
            } else if (ch == u'"') {
                quoted = true;
            } else if (ch == u',') {
                fs << cur;
                cur.clear();
            } else {
                cur += ch;
            }
        }
        fs << cur;
        return fs;
    };
    int nameCol = -1, valueCol = -1;
    while (!f.atEnd()) {
        const QString line = QString::fromUtf8(f.readLine()).trimmed();
        if (!line.startsWith(u'"'))
            continue;
        const QStringList fs = fields(line);
        if (nameCol < 0) {
            nameCol = int(fs.indexOf(QStringLiteral("Metric Name")));
            valueCol = int(fs.indexOf(QStringLiteral("Metric Value")));
            continue;
        }
        if (nameCol < fs.size() && valueCol < fs.size())
            out[fs[nameCol]].append(QString(fs[valueCol]).remove(u',').toDouble());
    }
    return out;
}

} // namespace kwb::test
