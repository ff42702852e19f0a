// SPDX-License-Identifier: MIT
#include "pipeline/cassettes.h"

#include "env/locations.h"
#include "llm/replayprovider.h"
#include "llm/tokens.h"

#include <QDateTime>
#include <QFileInfo>

namespace kwb::pipeline {

QString shippedCassette(const QString &taskName)
{
    const QString file = env::resourcesDir() + QStringLiteral("/cassettes/") + taskName + QStringLiteral(".json");
    return QFileInfo::exists(file) ? file : QString();
}

bool recordCassette(const Run &run, const QString &sourceCassette, const QString &outFile, QString *error)
{
    llm::Cassette out;
    if (!sourceCassette.isEmpty()) {
        QString e;
        if (const auto src = llm::loadCassette(sourceCassette, &e))
            out.metadata = src->metadata;
    }
    out.metadata.insert(QStringLiteral("task"), run.info.taskName);
    out.metadata.insert(QStringLiteral("recorded_from"), run.info.id);
    out.metadata.insert(QStringLiteral("prompts_rehashed_at"),
                        QDateTime::currentDateTimeUtc().toString(Qt::ISODate));
    for (LlmExchange x : run.exchanges) {
        if (!x.error.isEmpty() || x.response.isEmpty())
            continue;
        x.promptHash = llm::promptHash(x.messages);
        x.candidateId.clear();
        out.exchanges.append(x);
    }
    return llm::saveCassette(out, outFile, error);
}

} // namespace kwb::pipeline
