// SPDX-License-Identifier: MIT
// suite.json: the suite's value types in and out of JSON, and the atomic file (QSaveFile).
#include "suite/suite.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSaveFile>

namespace kwb::suite {

namespace {
QJsonValue number(double v)
{
    return std::isfinite(v) ? QJsonValue(v) : QJsonValue(QJsonValue::Null);
}
double numberOf(const QJsonValue &v)
{
    return v.isDouble() ? v.toDouble() : std::numeric_limits<double>::quiet_NaN();
}
} // namespace

QJsonObject toJson(const SuiteEntry &e)
{
    return {{"task_file", e.taskFile},
            {"task", e.taskName},
            {"level", e.level},
            {"run_dir", e.runDir},
            {"state", toName(e.state)},
            {"best_candidate", e.bestCandidateId},
            {"speedup_vs_eager", number(e.speedupVsEager)},
            {"speedup_vs_graph", number(e.speedupVsGraph)},
            {"correct", e.correct},
            {"integrity_flags", QJsonArray::fromStringList(e.integrityFlags)},
            {"candidates", e.candidates},
            {"tokens", e.tokens},
            {"cost_usd", e.costUsd},
            {"wall_seconds", e.wallSeconds},
            {"failure_reason", e.failureReason},
            {"attempts", e.attempts}};
}

SuiteEntry suiteEntryFromJson(const QJsonObject &o)
{
    SuiteEntry e;
    e.taskFile = o.value(QLatin1String("task_file")).toString();
    e.taskName = o.value(QLatin1String("task")).toString();
    e.level = o.value(QLatin1String("level")).toInt();
    e.runDir = o.value(QLatin1String("run_dir")).toString();
    e.state = entryStateFromString(o.value(QLatin1String("state")).toString());
    e.bestCandidateId = o.value(QLatin1String("best_candidate")).toString();
    e.speedupVsEager = numberOf(o.value(QLatin1String("speedup_vs_eager")));
    e.speedupVsGraph = numberOf(o.value(QLatin1String("speedup_vs_graph")));
    e.correct = o.value(QLatin1String("correct")).toBool();
    for (const auto &f : o.value(QLatin1String("integrity_flags")).toArray())
        e.integrityFlags << f.toString();
    e.candidates = o.value(QLatin1String("candidates")).toInt();
    e.tokens = o.value(QLatin1String("tokens")).toInteger();
    e.costUsd = o.value(QLatin1String("cost_usd")).toDouble();
    e.wallSeconds = o.value(QLatin1String("wall_seconds")).toDouble();
    e.failureReason = o.value(QLatin1String("failure_reason")).toString();
    e.attempts = o.value(QLatin1String("attempts")).toInt();
    return e;
}

QJsonObject toJson(const Suite &s)
{
    QJsonArray entries;
    for (const auto &e : s.entries)
        entries.append(toJson(e));
    return {{"schema_version", s.schemaVersion},
            {"kind", QStringLiteral("kwb-suite")},
            {"created_at", s.createdAt.toUTC().toString(Qt::ISODateWithMs)},
            {"settings", s.settings},
            {"entries", entries}};
}

std::optional<Suite> suiteFromJson(const QJsonObject &o, QString *error)
{
    if (o.value(QLatin1String("kind")).toString() != QLatin1String("kwb-suite")) {
        if (error)
            *error = QStringLiteral("not a suite index (no \"kind\": \"kwb-suite\")");
        return std::nullopt;
    }
    Suite s;
    s.schemaVersion = o.value(QLatin1String("schema_version")).toInt(1);
    if (s.schemaVersion > 1) {
        if (error)
            *error = QStringLiteral("suite schema version %1 is newer than this workbench reads (1)").arg(s.schemaVersion);
        return std::nullopt;
    }
    s.createdAt = QDateTime::fromString(o.value(QLatin1String("created_at")).toString(), Qt::ISODateWithMs);
    s.settings = o.value(QLatin1String("settings")).toObject();
    for (const auto &e : o.value(QLatin1String("entries")).toArray())
        s.entries.append(suiteEntryFromJson(e.toObject()));
    return s;
}

QString suiteFile(const QString &suiteDir)
{
    return QDir(suiteDir).filePath(QStringLiteral("suite.json"));
}

bool isSuiteDirectory(const QString &dir)
{
    return QFileInfo::exists(suiteFile(dir));
}

bool writeSuite(const QString &suiteDir, const Suite &suite, QString *error)
{
    if (!QDir().mkpath(suiteDir)) {
        if (error)
            *error = QStringLiteral("cannot create the suite directory %1").arg(suiteDir);
        return false;
    }
    QSaveFile f(suiteFile(suiteDir));
    if (!f.open(QIODevice::WriteOnly) || f.write(QJsonDocument(toJson(suite)).toJson(QJsonDocument::Indented)) < 0
        || !f.commit()) {
        if (error)
            *error = QStringLiteral("cannot write %1: %2").arg(f.fileName(), f.errorString());
        return false;
    }
    return true;
}

std::optional<Suite> readSuite(const QString &suiteDir, QString *error)
{
    QFile f(suiteFile(suiteDir));
    if (!f.open(QIODevice::ReadOnly)) {
        if (error)
            *error = QStringLiteral("no suite in %1 (cannot read %2)").arg(suiteDir, f.fileName());
        return std::nullopt;
    }
    QJsonParseError pe;
    const auto doc = QJsonDocument::fromJson(f.readAll(), &pe);
    if (!doc.isObject()) {
        if (error)
            *error = QStringLiteral("%1 is not valid JSON: %2").arg(f.fileName(), pe.errorString());
        return std::nullopt;
    }
    QString e;
    auto s = suiteFromJson(doc.object(), &e);
    if (!s && error)
        *error = f.fileName() + QStringLiteral(": ") + e;
    return s;
}

} // namespace kwb::suite
