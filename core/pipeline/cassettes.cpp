// SPDX-License-Identifier: MIT
#include "pipeline/cassettes.h"

#include "env/locations.h"
#include "llm/replayprovider.h"
#include "llm/tokens.h"

#include <QDateTime>
#include <QFileInfo>
#include <QHash>

namespace kwb::pipeline {

QString shippedCassette(const QString &taskName)
{
    const QString file = env::resourcesDir() + QStringLiteral("/cassettes/") + taskName + QStringLiteral(".json");
    return QFileInfo::exists(file) ? file : QString();
}

bool recordCassette(const Run &run, const QString &sourceCassette, const QString &outFile, QString *error)
{
    llm::Cassette out;
    QList<LlmExchange> source;
    if (!sourceCassette.isEmpty()) {
        QString e;
        if (const auto src = llm::loadCassette(sourceCassette, &e)) {
            out.metadata = src->metadata;
            source = src->exchanges;
        }
    }
    // The n-th call of a type in the run replaces the prompt of the n-th recorded one of that type
    // (the answer stays the source's); calls the run did not make keep their old prompt; calls
    // with no source counterpart (a live provider) are added.
    QHash<QString, int> seen;
    QList<LlmExchange> fromRun;
    for (const LlmExchange &x : run.exchanges)
        if (x.error.isEmpty() && !x.response.isEmpty())
            fromRun.append(x);
    QHash<QString, QList<int>> sourceIndex;
    for (int i = 0; i < source.size(); ++i)
        sourceIndex[source.at(i).callType].append(i);
    QList<LlmExchange> merged = source;
    int rehashed = 0;
    for (const LlmExchange &x : fromRun) {
        const int n = seen[x.callType]++;
        const QList<int> idx = sourceIndex.value(x.callType);
        if (n < idx.size()) {
            LlmExchange &m = merged[idx.at(n)];
            m.messages = x.messages;
            m.promptHash = llm::promptHash(x.messages);
            ++rehashed;
        } else {
            LlmExchange y = x;
            y.promptHash = llm::promptHash(y.messages);
            y.candidateId.clear();
            merged.append(y);
        }
    }
    out.exchanges = merged;
    out.metadata.insert(QStringLiteral("task"), run.info.taskName);
    out.metadata.insert(QStringLiteral("recorded_from"), run.info.id);
    out.metadata.insert(QStringLiteral("prompts_rehashed_at"), QDateTime::currentDateTimeUtc().toString(Qt::ISODate));
    out.metadata.insert(QStringLiteral("prompts_rehashed"), QStringLiteral("%1 of %2 exchanges").arg(rehashed).arg(merged.size()));
    return llm::saveCassette(out, outFile, error);
}

} // namespace kwb::pipeline
