// SPDX-License-Identifier: MIT
#include "eval/baselinecache.h"

#include "env/locations.h"
#include "model/json.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QSaveFile>

namespace kwb {

BaselineCache::BaselineCache(const QString &dir)
    : m_dir(dir.isEmpty() ? env::cacheDir() + QStringLiteral("/baselines") : dir)
{
}

QString BaselineCache::Key::id() const
{
    const QString text = QStringList{taskHash, device, torchVersion, QString::number(warmup), QString::number(repeat),
                                     QString::number(seed), graph ? QStringLiteral("graph") : QStringLiteral("nograph")}
                             .join(QLatin1Char('\x1f'));
    return QString::fromLatin1(QCryptographicHash::hash(text.toUtf8(), QCryptographicHash::Sha256).toHex().left(32));
}

std::optional<EvalResult> BaselineCache::lookup(const Key &key) const
{
    QFile f(m_dir + QLatin1Char('/') + key.id() + QStringLiteral(".json"));
    if (!f.open(QIODevice::ReadOnly))
        return std::nullopt;
    const QJsonDocument doc = QJsonDocument::fromJson(f.readAll());
    if (!doc.isObject())
        return std::nullopt; // damaged: treat as a miss, store() overwrites it
    const QJsonObject o = doc.object();
    // The key is stored too, so a (theoretical) id collision never returns another task's figures.
    if (o.value(QStringLiteral("task_hash")).toString() != key.taskHash
        || o.value(QStringLiteral("device")).toString() != key.device
        || o.value(QStringLiteral("torch")).toString() != key.torchVersion)
        return std::nullopt;
    EvalResult r = json::evalResultFromJson(o.value(QStringLiteral("result")).toObject());
    if (!r.eager.isValid())
        return std::nullopt;
    return r;
}

bool BaselineCache::store(const Key &key, const EvalResult &result)
{
    if (!result.eager.isValid() || result.status != EvalStatus::Ok)
        return false;
    if (!QDir().mkpath(m_dir))
        return false;
    QJsonObject o{{QStringLiteral("schema"), 1},
                  {QStringLiteral("task_hash"), key.taskHash},
                  {QStringLiteral("device"), key.device},
                  {QStringLiteral("torch"), key.torchVersion},
                  {QStringLiteral("warmup"), key.warmup},
                  {QStringLiteral("repeat"), key.repeat},
                  {QStringLiteral("seed"), key.seed},
                  {QStringLiteral("graph"), key.graph},
                  {QStringLiteral("result"), json::toJson(result)}};
    QSaveFile f(m_dir + QLatin1Char('/') + key.id() + QStringLiteral(".json"));
    if (!f.open(QIODevice::WriteOnly))
        return false;
    f.write(QJsonDocument(o).toJson());
    return f.commit();
}

void BaselineCache::clear()
{
    QDir d(m_dir);
    for (const QString &f : d.entryList({QStringLiteral("*.json")}, QDir::Files))
        d.remove(f);
}

} // namespace kwb
